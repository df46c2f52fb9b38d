import type { PoolClient } from 'pg';
import type { FeedPoint } from './read-chain-events';
import { prepared } from './prepared';

/** Committed events after `after` in the feed's order (all of them for null). */
export async function countFeedAfter(db: PoolClient, after: FeedPoint | null): Promise<number> {
  const { rows } = await db.query<{ count: string }>(
    prepared(
      `select count(*) from events
        where transaction_id < pg_snapshot_xmin(pg_current_snapshot()) and (transaction_id, position) > ($1::xid8, $2::bigint)`,
      [after?.transactionId ?? '0', after?.position ?? '0'],
    ),
  );
  return Number(rows[0].count);
}
