import { prepared } from '@ipledger/event-store';
import type { LabelSelector, PoolSpec } from '@ipledger/domain';
import { unkeyedSql } from './cluster-key-sql';
import { decodeContinue, encodeContinue } from './continue-token';
import { drivingRequirement, labelRowsSql, requirementsSql } from './label-selector-sql';
import { canonicalCidr } from '@ipledger/ip';
import type { Queryable } from './queryable';
import { nodeKeySql } from './node-queries';
import { rfc3339 } from './rfc3339';

/** A StatefulSet's continuous range inside a pool, as the pool shows it. */
export interface StatefulSetRangeView {
  cluster: string;
  namespace: string;
  name: string;
  start: string;
  end: string;
}

/** A pool as the API shows it: its definition, its counts (decimal strings), its StatefulSet ranges and its history stamps. */
export interface PoolView extends PoolSpec {
  /** the isolated network whose address space it is in; null: the shared space */
  network: string | null;
  /** the clusters that may allocate from it, by their labels; null: every cluster */
  clusterSelector: string | null;
  reuseDelaySeconds: number;
  allowSpecialRanges: boolean;
  capacity: string;
  allocated: string;
  reservedCount: string;
  rangeReservedCount: string;
  free: string;
  statefulSetRanges: StatefulSetRangeView[];
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface Page<T> {
  items: T[];
  continue: string | null;
}

/** A pool's columns as PoolView names them (alias `p`). */
export const POOL_COLUMNS = `p.name, p.cidr::text AS cidr, p.family, host(p.gateway) AS gateway, p.labels, p.node_selector AS "nodeSelector", p.cluster_selector AS "clusterSelector", p.reserved, p.disabled,
  p.reuse_delay_seconds AS "reuseDelaySeconds", p.allow_special_ranges AS "allowSpecialRanges", p.capacity::text AS capacity, p.allocated::text AS allocated, (p.reserved_count + p.range_reserved)::text AS "reservedCount",
  p.range_reserved::text AS "rangeReservedCount", (p.capacity - p.allocated - p.reserved_count - p.range_reserved)::text AS free, p.version, ${rfc3339('p.created_at')} AS "createdAt", ${rfc3339('p.updated_at')} AS "updatedAt",
  (SELECT coalesce(json_agg(json_build_object('cluster', r.cluster, 'namespace', ${unkeyedSql('r.cluster', 'r.namespace')}, 'name', r.name, 'start', host(r.first_ip), 'end', host(r.last_ip))
                            ORDER BY r.first_ip), '[]')
     FROM pool_ranges r WHERE r.pool = p.name) AS "statefulSetRanges",
  p.block_size AS "blockSize", p.block_affinity AS "blockAffinity", p.block_release_seconds AS "blockReleaseSeconds", p.network`;

/** PostgreSQL prints some IPv6 networks dotted: rows show the service's one canonical text. */
export const canonicalPool = <T extends { cidr: string; blockSize?: number | null }>(row: T): T => {
  // a pool without blocks shows no block fields
  const { blockSize, blockAffinity, blockReleaseSeconds, ...rest } = row as T & { blockAffinity?: unknown; blockReleaseSeconds?: unknown };
  const blocks = blockSize === null || blockSize === undefined ? {} : { blockSize, blockAffinity, blockReleaseSeconds };
  return { ...rest, ...blocks, cidr: canonicalCidr(row.cidr) } as unknown as T;
};

export async function findPool(db: Queryable, name: string): Promise<PoolView | null> {
  const { rows } = await db.query<PoolView>(prepared(`SELECT ${POOL_COLUMNS} FROM pools p WHERE p.name = $1`, [name]));
  return rows[0] ? canonicalPool(rows[0]) : null;
}

/** Pools in the order given, unknown names left out. */
export async function findPoolsByName(db: Queryable, names: readonly string[]): Promise<PoolView[]> {
  const { rows } = await db.query<PoolView>(prepared(`SELECT ${POOL_COLUMNS} FROM pools p WHERE p.name = ANY($1)`, [names]));
  const byName = new Map(rows.map((row) => [row.name, canonicalPool(row)]));
  return names.flatMap((name) => byName.get(name) ?? []);
}

/**
 * Existing pools that overlap any of these CIDRs, an IPv4 address and its IPv4-mapped IPv6 form
 * counting as one (through the GiST index of the exclusion constraint, on the same expression),
 * with their networks: only those of the same network are in the way (sameNetwork).
 */
export async function findOverlappingPools(
  db: Queryable,
  cidrs: readonly string[],
): Promise<Array<{ name: string; cidr: string; network: string | null }>> {
  const { rows } = await db.query(
    prepared(
      `SELECT name, cidr::text AS cidr, network FROM pools
        WHERE pool_address_space(cidr) && ANY(ARRAY(SELECT pool_address_space(c) FROM unnest($1::cidr[]) c)) ORDER BY name`,
      [cidrs],
    ),
  );
  return (rows as Array<{ name: string; cidr: string; network: string | null }>).map(canonicalPool);
}

/**
 * The space an allocation naming `network` allocates in, as SQL over a parameter (`$n`): that
 * network when some pool has it (pools_network index), else the shared space (null).
 */
export const allocationSpaceSql = (param: string) => `(SELECT s.network FROM pools s WHERE s.network = ${param} LIMIT 1)`;

/** Which pools a list or a selection covers; no filter is every pool. */
export interface PoolFilter {
  /** a Kubernetes label selector over pool labels */
  labelSelector?: LabelSelector;
  /** matchLabel: pools whose label `key` has node `node`'s value for it, looked up inside the same query */
  sameLabelAs?: { node: string; cluster: string; key: string };
  /**
   * Pools in the space an allocation naming this network allocates in (null: it names none):
   * that network's pools when some pool has it, else the pools of no network.
   */
  spaceOf?: string | null;
}

export interface PoolListQuery {
  filter: PoolFilter;
  /** keeps pools whose own filter accepts them (e.g. nodeSelector against a node's labels) */
  accept?: (pool: PoolView) => boolean;
  limit: number;
  continue?: string;
}

/**
 * One page of pools by name after `after`. A label rule drives the query from pool_labels (a
 * b-tree range, in pool-name order for `=`) and looks each pool up by name, so the cost follows
 * the matches, not the table. Exported so a test can EXPLAIN exactly what runs.
 */
export function poolPageSql(filter: PoolFilter, after: string | null, limit: number): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const where: string[] = [];
  const selector = filter.labelSelector;
  const driving = selector ? drivingRequirement(selector) : null;
  if (filter.sameLabelAs) {
    const key = `$${values.push(filter.sameLabelAs.key)}`;
    where.push(
      `l.key = ${key} AND l.value = (SELECT n.labels ->> ${key} FROM nodes n
         WHERE n.name = ${nodeKeySql(`$${values.push(filter.sameLabelAs.cluster)}::text`, `$${values.push(filter.sameLabelAs.node)}::text`)})`,
    );
  } else if (driving) {
    where.push(labelRowsSql(driving, 'l', values));
  }
  if (filter.spaceOf !== undefined) {
    where.push(
      `p.network IS NOT DISTINCT FROM ${filter.spaceOf === null ? 'NULL' : allocationSpaceSql(`$${values.push(filter.spaceOf)}`)}`,
    );
  }
  const others = (selector?.requirements ?? []).filter((r) => r !== driving);
  if (others.length) where.push(requirementsSql(others, 'p.name', values));
  const byLabel = filter.sameLabelAs !== undefined || driving !== null;
  const order = byLabel ? 'l.pool' : 'p.name';
  if (after !== null) where.push(`${order} > $${values.push(after)}`);
  return {
    text: `SELECT ${POOL_COLUMNS} FROM ${byLabel ? 'pool_labels l JOIN pools p ON p.name = l.pool' : 'pools p'}
           ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order} LIMIT $${values.push(limit)}`,
    values,
  };
}

/** Pools by name, filtered on the server through the labels index; keyset paging. */
export async function listPools(db: Queryable, query: PoolListQuery): Promise<Page<PoolView>> {
  const after = decodeContinue(query.continue, ['string']);
  const items: PoolView[] = [];
  let cursor = (after?.[0] as string | undefined) ?? null;
  for (;;) {
    const { text, values } = poolPageSql(query.filter, cursor, query.limit + 1);
    const { rows } = await db.query<PoolView>(prepared(text, values));
    const batch = rows.slice(0, query.limit).map(canonicalPool);
    for (const [i, row] of batch.entries()) {
      const pool = row;
      cursor = pool.name;
      if (query.accept && !query.accept(pool)) continue;
      items.push(pool);
      if (items.length === query.limit) {
        const more = i < batch.length - 1 || rows.length > query.limit;
        return { items, continue: more ? encodeContinue([pool.name]) : null };
      }
    }
    if (rows.length <= query.limit) return { items, continue: null };
  }
}
