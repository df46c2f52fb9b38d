import type { LabelSelector, PoolSpec } from '@ipledger/domain';
import { decodeContinue, encodeContinue } from './continue-token';
import { drivingRequirement, labelRowsSql, requirementSql } from './label-selector-sql';
import type { Queryable } from './queryable';

/** A pool as the API shows it: its definition, its counts (decimal strings) and its history stamps. */
export interface PoolView extends PoolSpec {
  capacity: string;
  allocated: string;
  reservedCount: string;
  free: string;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface Page<T> {
  items: T[];
  continue: string | null;
}

const POOL_COLUMNS = `p.name, p.cidr::text AS cidr, p.family, p.labels, p.node_selector AS "nodeSelector", p.reserved, p.disabled,
  p.capacity::text AS capacity, p.allocated::text AS allocated, p.reserved_count::text AS "reservedCount",
  (p.capacity - p.allocated - p.reserved_count)::text AS free, p.version, p.created_at AS "createdAt", p.updated_at AS "updatedAt"`;

type PoolRow = Omit<PoolView, 'createdAt' | 'updatedAt'> & { createdAt: Date; updatedAt: Date };

const toView = (row: PoolRow): PoolView => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export async function findPool(db: Queryable, name: string): Promise<PoolView | null> {
  const { rows } = await db.query<PoolRow>(`SELECT ${POOL_COLUMNS} FROM pools p WHERE p.name = $1`, [name]);
  return rows[0] ? toView(rows[0]) : null;
}

/** Pools in the order given, unknown names left out. */
export async function findPoolsByName(db: Queryable, names: readonly string[]): Promise<PoolView[]> {
  const { rows } = await db.query<PoolRow>(`SELECT ${POOL_COLUMNS} FROM pools p WHERE p.name = ANY($1)`, [names]);
  const byName = new Map(rows.map((row) => [row.name, toView(row)]));
  return names.flatMap((name) => byName.get(name) ?? []);
}

/** Existing pools that overlap any of these CIDRs (through the GiST index of the exclusion constraint). */
export async function findOverlappingPools(db: Queryable, cidrs: readonly string[]): Promise<Array<{ name: string; cidr: string }>> {
  const { rows } = await db.query('SELECT name, cidr::text AS cidr FROM pools WHERE cidr && ANY($1::cidr[]) ORDER BY name', [cidrs]);
  return rows as Array<{ name: string; cidr: string }>;
}

export interface PoolListQuery {
  labelSelector?: LabelSelector;
  /** keeps pools whose own filter accepts them (e.g. nodeSelector against a node's labels) */
  accept?: (pool: PoolView) => boolean;
  limit: number;
  continue?: string;
}

/**
 * One page of pools by name after `after`, filtered by a label selector. Exported so a test can
 * EXPLAIN exactly what runs: selection must go through the GIN index on labels, never a scan.
 */
export function poolPageSql(selector: LabelSelector | undefined, after: string | null, limit: number): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const driving = selector ? drivingRequirement(selector) : null;
  const where: string[] = [];
  let from = 'pools p';
  if (driving) {
    // start from the matching label rows (a b-tree range, in pool-name order for `=`) and look
    // each pool up by name: the cost follows the matches, not the table
    from = 'pool_labels l JOIN pools p ON p.name = l.pool';
    where.push(labelRowsSql(driving, 'l', values));
  }
  for (const r of selector?.requirements ?? []) {
    if (r !== driving) where.push(requirementSql(r, 'p.name', values));
  }
  if (after !== null) where.push(`${driving ? 'l.pool' : 'p.name'} > $${values.push(after)}`);
  return {
    text: `SELECT ${POOL_COLUMNS} FROM ${from} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
           ORDER BY ${driving ? 'l.pool' : 'p.name'} LIMIT $${values.push(limit)}`,
    values,
  };
}

/** Pools by name, filtered on the server through the labels index; keyset paging. */
export async function listPools(db: Queryable, query: PoolListQuery): Promise<Page<PoolView>> {
  const after = decodeContinue(query.continue, 1);
  const items: PoolView[] = [];
  let cursor = (after?.[0] as string | undefined) ?? null;
  for (;;) {
    const { text, values } = poolPageSql(query.labelSelector, cursor, query.limit + 1);
    const { rows } = await db.query<PoolRow>(text, values);
    const batch = rows.slice(0, query.limit);
    for (const [i, row] of batch.entries()) {
      const pool = toView(row);
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
