export interface StatefulSetDeleted {
  type: 'StatefulSetDeleted';
  data: { namespace: string; name: string };
}
