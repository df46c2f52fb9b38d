import type { Pool, PoolClient } from 'pg';

/**
 * Committed events the audit chain does not cover yet (below the feed's horizon, after the last
 * link): what the sealer has still to do. Only those events are scanned (events_transaction_order).
 */
export async function readUnsealedCount(db: Pool | PoolClient): Promise<number> {
  const { rows } = await db.query<{ unsealed: string }>(
    `with head as (select transaction_id, position from event_links order by seq desc limit 1)
     select count(*) as unsealed from events
      where transaction_id < pg_snapshot_xmin(pg_current_snapshot())
        and (transaction_id, position) > (coalesce((select transaction_id from head), '0'::xid8), coalesce((select position from head), 0))`,
  );
  return Number(rows[0].unsealed);
}
