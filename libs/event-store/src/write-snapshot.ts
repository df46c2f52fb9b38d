import { Pool, PoolClient } from 'pg';
import { prepared } from './prepared';

/**
 * Stores the state of a stream at `version` as a row of its own: snapshots are only ever added
 * (the service role may not update or delete them), and the newest version wins on read. A
 * snapshot already stored at that version (another replica's) is kept.
 */
export async function writeSnapshot(db: Pool | PoolClient, streamId: string, version: number, state: unknown): Promise<void> {
  await db.query(
    prepared(`insert into stream_snapshots (stream_id, version, state) values ($1, $2, $3::jsonb) on conflict do nothing`, [
      streamId,
      version,
      JSON.stringify(state),
    ]),
  );
}
