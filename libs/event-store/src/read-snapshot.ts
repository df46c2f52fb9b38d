import { prepared } from './prepared';
import { Pool, PoolClient } from 'pg';

/** The newest snapshot of a stream, or null. */
export async function readSnapshot(db: Pool | PoolClient, streamId: string): Promise<{ version: number; state: unknown } | null> {
  const { rows } = await db.query<{ version: number; state: unknown }>(
    prepared('select version, state from stream_snapshots where stream_id = $1 order by version desc limit 1', [streamId]),
  );
  return rows[0] ?? null;
}
