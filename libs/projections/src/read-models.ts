/** Every read model with its primary key, parents before children (pool_labels and pool_ranges reference pools). */
export const READ_MODELS = [
  { table: 'pools', key: ['name'] },
  { table: 'pool_labels', key: ['key', 'value', 'pool'] },
  { table: 'pool_ranges', key: ['pool', 'namespace', 'name'] },
  { table: 'nodes', key: ['name'] },
  { table: 'allocations', key: ['handle', 'family'] },
  { table: 'statefulsets', key: ['namespace', 'name'] },
] as const;

export type ReadModel = (typeof READ_MODELS)[number];
export type ReadModelTable = ReadModel['table'];
