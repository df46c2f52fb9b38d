import { DEFAULT_CLUSTER } from '@ipledger/domain';

/**
 * A name stored under its cluster's key (SQL), as nodeStreamId and namespaceKey make it: the name
 * itself in the default cluster, `<cluster>/<name>` in another. Such a table keeps the primary
 * key the previous release upserts on, and two clusters' same name are two rows.
 */
export const clusterKeySql = (cluster: string, name: string) =>
  `(CASE WHEN ${cluster} = '${DEFAULT_CLUSTER}' THEN ${name} ELSE ${cluster} || '/' || ${name} END)`;

/** The cluster an event's data names (SQL): absent, as in events recorded before clusters, the default one. */
export const eventClusterSql = (data: string) => `coalesce(${data} ->> 'cluster', '${DEFAULT_CLUSTER}')`;

/** The name a stored key (clusterKeySql) holds, without its cluster's prefix. */
export const unkeyedSql = (cluster: string, key: string) =>
  `(CASE WHEN ${cluster} = '${DEFAULT_CLUSTER}' THEN ${key} ELSE substr(${key}, length(${cluster}) + 2) END)`;
