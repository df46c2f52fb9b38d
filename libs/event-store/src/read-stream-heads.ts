import type { PoolClient } from 'pg';

/** Every stream whose id starts with `prefix-`, with its last version, in stream order. */
export async function readStreamHeads(db: PoolClient, prefix: string): Promise<Array<{ streamId: string; version: number }>> {
  const { rows } = await db.query<{ streamId: string; version: number }>(
    `select stream_id as "streamId", max(version) as version from events
      where left(stream_id, length($1)) = $1 group by stream_id order by stream_id`,
    [`${prefix}-`],
  );
  return rows;
}
