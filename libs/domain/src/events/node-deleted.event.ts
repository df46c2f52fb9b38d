export interface NodeDeleted {
  type: 'NodeDeleted';
  /** `cluster` absent: the default cluster */
  data: { name: string; cluster?: string };
}
