import type { Pool, PoolClient } from 'pg';
import { prepared } from './prepared';

export interface StoredSnapshot {
  streamId: string;
  version: number;
  state: unknown;
}

/** Every stored snapshot after (streamId, version), in stream then version order: a page of them. */
export async function readStreamSnapshots(
  db: Pool | PoolClient,
  after: { streamId: string; version: number } | null,
  limit: number,
): Promise<StoredSnapshot[]> {
  const { rows } = await db.query<StoredSnapshot>(
    prepared(
      `select stream_id as "streamId", version, state from stream_snapshots
        where (stream_id, version) > ($1::text, $2::int) order by stream_id, version limit $3`,
      [after?.streamId ?? '', after?.version ?? 0, limit],
    ),
  );
  return rows;
}
