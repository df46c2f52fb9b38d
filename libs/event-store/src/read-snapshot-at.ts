import { prepared } from './prepared';
import { Pool, PoolClient } from 'pg';

export interface SnapshotAt {
  version: number;
  state: unknown;
  /** the event at `version`: its position and recorded time */
  position: number;
  recordedAt: Date;
}

/**
 * The newest snapshot of a stream whose event was recorded at or before `at` (to the millisecond
 * the API shows), or null: where a replay to that instant starts. A stream's events are recorded
 * in version order (each version appends after the one before it committed), so every event the
 * snapshot covers is at or before `at` too.
 */
export async function readSnapshotAt(db: Pool | PoolClient, streamId: string, at: Date): Promise<SnapshotAt | null> {
  const { rows } = await db.query<{ version: number; state: unknown; position: string; recorded_at: Date }>(
    prepared(
      `select s.version, s.state, e.position, e.recorded_at from stream_snapshots s
         join events e on e.stream_id = s.stream_id and e.version = s.version
        where s.stream_id = $1 and date_trunc('milliseconds', e.recorded_at) <= $2
        order by s.version desc limit 1`,
      [streamId, at],
    ),
  );
  const row = rows[0];
  return row ? { version: row.version, state: row.state, position: Number(row.position), recordedAt: row.recorded_at } : null;
}
