import { prepared } from '@ipledger/event-store';
import { InvalidInputError } from '@ipledger/domain';
import { canonicalCidr, parseCidr } from '@ipledger/ip';
import { eventClusterSql } from './cluster-key-sql';
import { decodeContinue, encodeContinue } from './continue-token';
import type { Page } from './pool-queries';
import type { Queryable } from './queryable';

/** A claimed block as a route controller reads it: the addresses held in it, and how many of those other nodes borrowed. */
export interface BlockView {
  cidr: string;
  pool: string;
  /** the pool's isolated network, present when it has one: a route controller announces the block in that network's routing */
  network?: string;
  node: string;
  /** the node's cluster */
  cluster: string;
  used: number;
  borrowed: number;
}

export interface BlockListQuery {
  filter: { pool: string } | { node: string; cluster: string };
  limit: number;
  continue?: string;
}

/**
 * Blocks by (pool, cidr), keyset paging. The counts are read from allocations through its
 * (pool, ip) index, one range a block, so the allocation path keeps writing nothing for blocks.
 */
export async function listBlocks(db: Queryable, query: BlockListQuery): Promise<Page<BlockView>> {
  const after = decodeContinue(query.continue, ['string', 'string']) as [string, string] | null;
  const values: unknown[] = [];
  const { filter } = query;
  const where =
    'pool' in filter
      ? [`b.pool = $${values.push(filter.pool)}`]
      : [`b.node = $${values.push(filter.node)}`, `b.cluster = $${values.push(filter.cluster)}`];
  if (after) where.push(`(b.pool, b.cidr) > ($${values.push(after[0])}, $${values.push(continueCidr(after[1]))}::cidr)`);
  const { rows } = await db.query<BlockView>(
    prepared(
      `SELECT b.cidr::text AS cidr, b.pool, (SELECT p.network FROM pools p WHERE p.name = b.pool) AS network, b.node, b.cluster, c.used, c.borrowed
         FROM pool_blocks b,
         LATERAL (SELECT count(*)::int AS used, (count(*) FILTER (WHERE a.node <> b.node OR a.cluster <> b.cluster))::int AS borrowed
                    FROM allocations a
                   WHERE a.pool = b.pool AND a.ip >= host(network(b.cidr))::inet AND a.ip <= host(broadcast(b.cidr))::inet) c
        WHERE ${where.join(' AND ')}
        ORDER BY b.pool, b.cidr LIMIT $${values.push(query.limit + 1)}`,
      values,
    ),
  );
  const items = rows
    .slice(0, query.limit)
    .map(({ network, ...row }) => ({ ...row, ...(network ? { network } : {}), cidr: canonicalCidr(row.cidr) }));
  const last = items.at(-1);
  return { items, continue: rows.length > query.limit && last ? encodeContinue([last.pool, last.cidr]) : null };
}

/**
 * The pools where a node had claimed a block by `at`, from the log (the read model knows only the
 * present): those GET /v1/nodes/{name}/blocks?at= folds, to the millisecond as readStream's `until`.
 * Through the index of migration 024.
 */
export async function findPoolsWithBlocksOfAt(db: Queryable, node: string, cluster: string, at: Date): Promise<string[]> {
  const { rows } = await db.query<{ pool: string }>(
    prepared(
      `SELECT DISTINCT data ->> 'pool' AS pool FROM events
        WHERE type = 'BlockClaimed' AND data ->> 'node' = $1 AND ${eventClusterSql('data')} = $3
          AND date_trunc('milliseconds', recorded_at) <= $2
        ORDER BY pool`,
      [node, at, cluster],
    ),
  );
  return rows.map((row) => row.pool);
}

/**
 * A page of blocks listed in memory (a point-in-time listing), in the order and with the continue
 * tokens of listBlocks: by pool, then by address.
 */
export function pageOfBlocks(items: readonly BlockView[], limit: number, token: string | undefined): Page<BlockView> {
  const after = decodeContinue(token, ['string', 'string']) as [string, string] | null;
  // checked whatever the page holds: a forged token is refused, not ignored
  const from = after && { pool: after[0], cidr: continueCidr(after[1]) };
  const sorted = [...items].sort(compareBlocks);
  const rest = from ? sorted.filter((block) => compareBlocks(block, from) > 0) : sorted;
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  return { items: page, continue: rest.length > limit && last ? encodeContinue([last.pool, last.cidr]) : null };
}

function continueCidr(text: string): string {
  try {
    return canonicalCidr(text);
  } catch {
    throw new InvalidInputError('INVALID_ARGUMENT', `continue token names "${text}", not a block this server listed`);
  }
}

function compareBlocks(a: Pick<BlockView, 'pool' | 'cidr'>, b: Pick<BlockView, 'pool' | 'cidr'>): number {
  if (a.pool !== b.pool) return a.pool < b.pool ? -1 : 1;
  const [x, y] = [parseCidr(a.cidr), parseCidr(b.cidr)];
  if (x.family !== y.family) return x.family - y.family;
  return x.network === y.network ? 0 : x.network < y.network ? -1 : 1;
}

/** The pools where a node holds blocks (to release its empty ones when it goes away), by name. */
export async function findPoolsWithBlocksOf(db: Queryable, node: string, cluster: string): Promise<string[]> {
  const { rows } = await db.query<{ pool: string }>(
    prepared('SELECT DISTINCT pool FROM pool_blocks WHERE node = $1 AND cluster = $2 ORDER BY pool', [node, cluster]),
  );
  return rows.map((row) => row.pool);
}

/**
 * Pools with a claimed block that no allocation falls in: those the idle-block sweep loads, where
 * the aggregate decides which are due (it knows since when each is empty).
 */
export async function findPoolsWithEmptyBlocks(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ pool: string }>(
    prepared(
      `SELECT DISTINCT b.pool FROM pool_blocks b
        WHERE NOT EXISTS (SELECT 1 FROM allocations a
                           WHERE a.pool = b.pool AND a.ip >= host(network(b.cidr))::inet AND a.ip <= host(broadcast(b.cidr))::inet)
        ORDER BY b.pool`,
      [],
    ),
  );
  return rows.map((row) => row.pool);
}
