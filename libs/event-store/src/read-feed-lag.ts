import type { Pool, PoolClient } from 'pg';

export interface FeedLag {
  /** committed events readAll does not return yet: at or above the cluster's oldest running transaction */
  heldBack: number;
  /** how long the oldest of them has waited; 0 when none waits */
  seconds: number;
}

/**
 * How far readAll's horizon (pg_snapshot_xmin: the oldest transaction still running anywhere in
 * the PostgreSQL cluster, in any database) holds the global log back. Only the events above the
 * horizon are scanned (events_transaction_order index).
 */
export async function readFeedLag(db: Pool | PoolClient): Promise<FeedLag> {
  const { rows } = await db.query<{ held_back: string; seconds: number | null }>(
    `select count(*) as held_back, extract(epoch from clock_timestamp() - min(recorded_at))::float8 as seconds
       from events where transaction_id >= pg_snapshot_xmin(pg_current_snapshot())`,
  );
  return { heldBack: Number(rows[0].held_back), seconds: Math.max(0, rows[0].seconds ?? 0) };
}
