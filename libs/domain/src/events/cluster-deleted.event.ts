export interface ClusterDeleted {
  type: 'ClusterDeleted';
  data: { name: string };
}
