import { prepared } from '@ipledger/event-store';
import type { Queryable } from './queryable';

/**
 * When each of `ips` was last allocated in a pool's stream, up to the event at `position`: the
 * stream's address history index (events_held_since, migration 034) read backwards from there, one
 * probe an address, so the time costs what the pool holds, not the length of its history. The last allocation or
 * release of an address a pool holds is the allocation of its holder.
 */
export async function readHeldSince(db: Queryable, streamId: string, position: number, ips: readonly string[]): Promise<Map<string, Date>> {
  const { rows } = await db.query<{ ip: string; at: Date }>(
    prepared(
      `SELECT h.ip, (SELECT e.recorded_at FROM events e
                      WHERE e.type IN ('IpAllocated', 'IpReleased') AND e.data ->> 'ip' = h.ip AND e.position <= $2 AND e.stream_id = $1
                      ORDER BY e.position DESC LIMIT 1) AS at
         FROM unnest($3::text[]) AS h(ip)`,
      [streamId, position, ips],
    ),
  );
  return new Map(rows.map((row) => [row.ip, row.at]));
}
