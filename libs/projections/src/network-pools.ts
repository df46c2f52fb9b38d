import { prepared } from '@ipledger/event-store';
import { canonicalPool, POOL_COLUMNS, type PoolView } from './pool-queries';
import type { Queryable } from './queryable';

/** The pools of one isolated network, or (null) of every network, by network then name (pools_network index). */
export async function findNetworkPools(db: Queryable, network: string | null): Promise<PoolView[]> {
  const { rows } = await db.query<PoolView>(
    prepared(
      `SELECT ${POOL_COLUMNS} FROM pools p WHERE ($1::text IS NULL AND p.network IS NOT NULL) OR p.network = $1 ORDER BY p.network, p.name`,
      [network],
    ),
  );
  return rows.map(canonicalPool);
}
