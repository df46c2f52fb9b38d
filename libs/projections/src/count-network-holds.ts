import { prepared } from '@ipledger/event-store';
import type { Queryable } from './queryable';

/** How many addresses of a network's pools are held under handles that start with `handlePrefix` (one caller's). */
export async function countNetworkHolds(db: Queryable, network: string, handlePrefix: string): Promise<number> {
  const { rows } = await db.query<{ held: number }>(
    prepared(
      `SELECT count(*)::int AS held FROM allocations a JOIN pools p ON p.name = a.pool
        WHERE p.network = $1 AND starts_with(a.handle, $2)`,
      [network, handlePrefix],
    ),
  );
  return rows[0].held;
}
