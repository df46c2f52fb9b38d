export interface StatefulSetDeleted {
  type: 'StatefulSetDeleted';
  /** cluster: absent for the default cluster */
  data: { namespace: string; name: string; cluster?: string };
}
