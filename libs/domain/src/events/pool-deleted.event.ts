export interface PoolDeleted {
  type: 'PoolDeleted';
  data: { name: string };
}
