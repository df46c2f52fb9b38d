import { prepared } from '@ipledger/event-store';
import type { Queryable } from './queryable';

/**
 * When a pool's stream last recorded its creation, at or before `version` (a deleted pool can be
 * created again): null for none. One backward step of events_pool_created (migration 034).
 */
export async function readPoolCreatedAt(db: Queryable, streamId: string, version: number): Promise<Date | null> {
  const { rows } = await db.query<{ recorded_at: Date }>(
    prepared(
      `SELECT recorded_at FROM events WHERE type = 'PoolCreated' AND stream_id = $1 AND version <= $2 ORDER BY version DESC LIMIT 1`,
      [streamId, version],
    ),
  );
  return rows[0]?.recorded_at ?? null;
}
