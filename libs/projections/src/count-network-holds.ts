import { prepared } from '@ipledger/event-store';
import type { Queryable } from './queryable';

/**
 * What handles that start with `handlePrefix` (one caller's) hold on a network: addresses of its
 * pools, and references to claims of that network (whose addresses the claim's own handle holds).
 */
export async function countNetworkHolds(db: Queryable, network: string, handlePrefix: string): Promise<number> {
  const { rows } = await db.query<{ held: number }>(
    prepared(
      `SELECT (SELECT count(*) FROM allocations a JOIN pools p ON p.name = a.pool
                WHERE p.network = $1 AND starts_with(a.handle, $2))
            + (SELECT count(*) FROM claim_references r JOIN claims c ON c.name = r.claim
                WHERE c.network = $1 AND starts_with(r.handle, $2)) AS held`,
      [network, handlePrefix],
    ),
  );
  return Number(rows[0].held);
}
