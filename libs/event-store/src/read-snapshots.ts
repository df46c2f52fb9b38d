import { prepared } from './prepared';
import { Pool, PoolClient } from 'pg';

/** The latest snapshots of several streams in one round trip, by stream id (streams without one are absent). */
export async function readSnapshots(
  db: Pool | PoolClient,
  streamIds: readonly string[],
): Promise<Map<string, { version: number; state: unknown }>> {
  const { rows } = await db.query<{ stream_id: string; version: number; state: unknown }>(
    prepared(
      'select distinct on (stream_id) stream_id, version, state from stream_snapshots where stream_id = any($1::text[]) order by stream_id, version desc',
      [streamIds],
    ),
  );
  return new Map(rows.map((row) => [row.stream_id, { version: row.version, state: row.state }]));
}
