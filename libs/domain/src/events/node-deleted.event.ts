export interface NodeDeleted {
  type: 'NodeDeleted';
  data: { name: string };
}
