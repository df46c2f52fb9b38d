import { Pool, PoolClient } from 'pg';

/** Stores the state of a stream at `version`, unless a snapshot at the same or a later version exists. */
export async function writeSnapshot(db: Pool | PoolClient, streamId: string, version: number, state: unknown): Promise<void> {
  await db.query(
    `insert into snapshots (stream_id, version, state) values ($1, $2, $3::jsonb)
     on conflict (stream_id) do update set version = excluded.version, state = excluded.state, taken_at = now()
     where snapshots.version < excluded.version`,
    [streamId, version, JSON.stringify(state)],
  );
}
