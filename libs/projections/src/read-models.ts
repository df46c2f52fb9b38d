/** Every read model with its primary key, parents before children (pool_labels, pool_ranges and pool_blocks reference pools). */
export const READ_MODELS = [
  { table: 'pools', key: ['name'] },
  { table: 'pool_labels', key: ['key', 'value', 'pool'] },
  { table: 'pool_ranges', key: ['pool', 'namespace', 'name'] },
  { table: 'pool_blocks', key: ['pool', 'cidr'] },
  { table: 'nodes', key: ['name'] },
  { table: 'allocations', key: ['cluster', 'handle', 'family'] },
  { table: 'statefulsets', key: ['namespace', 'name'] },
  { table: 'clusters', key: ['name'] },
  { table: 'claims', key: ['name'] },
  { table: 'claim_references', key: ['cluster', 'handle'] },
] as const;

export type ReadModel = (typeof READ_MODELS)[number];
export type ReadModelTable = ReadModel['table'];
