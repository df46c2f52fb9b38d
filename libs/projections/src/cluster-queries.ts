import { DEFAULT_CLUSTER, type Labels } from '@ipledger/domain';
import { prepared } from '@ipledger/event-store';
import { decodeContinue, encodeContinue } from './continue-token';
import type { Page } from './pool-queries';
import type { Queryable } from './queryable';
import { rfc3339 } from './rfc3339';

export interface ClusterView {
  name: string;
  labels: Labels;
  version: number;
  createdAt: string;
  updatedAt: string;
}

/**
 * The clusters, and `default` before its labels were ever set (no row, version 0): it exists since
 * ipledger was installed, the time its first migration ran.
 */
const CLUSTERS = `(SELECT name, labels, version, created_at, updated_at FROM clusters
   UNION ALL
  SELECT '${DEFAULT_CLUSTER}', '{}'::jsonb, 0, installed, installed FROM (SELECT min(applied_at) AS installed FROM schema_migrations) m
   WHERE NOT EXISTS (SELECT 1 FROM clusters WHERE name = '${DEFAULT_CLUSTER}')) c`;

const SELECT = `SELECT name, labels, version, ${rfc3339('created_at')} AS "createdAt", ${rfc3339('updated_at')} AS "updatedAt" FROM ${CLUSTERS}`;

/** A cluster's labels as SQL over a parameter (`$n`); null for a cluster whose labels were never set (it has none). */
export const clusterLabelsSql = (param: string) => `(SELECT c.labels FROM clusters c WHERE c.name = ${param})`;

/** A cluster's labels: none for one whose labels were never set (`default`, or one a write created). */
export async function findClusterLabels(db: Queryable, name: string): Promise<Labels> {
  const { rows } = await db.query<{ labels: Labels | null }>(prepared(`SELECT ${clusterLabelsSql('$1')} AS labels`, [name]));
  return rows[0].labels ?? {};
}

export async function findCluster(db: Queryable, name: string): Promise<ClusterView | null> {
  const { rows } = await db.query<ClusterView>(prepared(`${SELECT} WHERE name = $1`, [name]));
  return rows[0] ?? null;
}

/** By name, keyset-paged. */
export async function listClusters(db: Queryable, query: { limit: number; continue?: string }): Promise<Page<ClusterView>> {
  const after = decodeContinue(query.continue, ['string']) as [string] | null;
  const { rows } = await db.query<ClusterView>(
    prepared(`${SELECT} WHERE name > $1 ORDER BY name LIMIT $2`, [after?.[0] ?? '', query.limit + 1]),
  );
  const items = rows.slice(0, query.limit);
  const last = items.at(-1);
  return { items, continue: rows.length > query.limit && last ? encodeContinue([last.name]) : null };
}
