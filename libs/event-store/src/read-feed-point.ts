import type { PoolClient } from 'pg';
import type { FeedPoint } from './read-chain-events';
import { prepared } from './prepared';

/** Where the committed event at `position` stands in the feed, with its link number if sealed; null when there is none. */
export async function readFeedPoint(db: PoolClient, position: string): Promise<(FeedPoint & { seq: number | null }) | null> {
  const { rows } = await db.query<FeedPoint & { seq: string | null }>(
    prepared(
      `select events.transaction_id::text as "transactionId", events.position::text as "position", l.seq::text as seq
         from events left join event_links l on l.position = events.position
        where events.position = $1 and events.transaction_id < pg_snapshot_xmin(pg_current_snapshot())`,
      [position],
    ),
  );
  const row = rows[0];
  return row ? { transactionId: row.transactionId, position: row.position, seq: row.seq === null ? null : Number(row.seq) } : null;
}
