import type { PoolClient } from 'pg';

/**
 * Locks the log, its chain and the snapshots against every writer until the caller's transaction
 * ends (readers go on), and says what they hold: an import goes only into a database that holds none.
 */
export async function lockEmptyLog(db: PoolClient): Promise<{ events: number; links: number; snapshots: number }> {
  await db.query('lock table events, event_links, stream_snapshots in exclusive mode');
  const { rows } = await db.query<{ events: string; links: string; snapshots: string }>(
    `select (select count(*) from events) as events, (select count(*) from event_links) as links,
            (select count(*) from stream_snapshots) as snapshots`,
  );
  return { events: Number(rows[0].events), links: Number(rows[0].links), snapshots: Number(rows[0].snapshots) };
}
