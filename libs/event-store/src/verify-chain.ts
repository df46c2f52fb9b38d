import type { Pool, PoolClient } from 'pg';

export interface BrokenLink {
  streamId: string;
  version: number;
  position: number;
  stored: string;
  expected: string;
}

/**
 * Recomputes every stream's hash chain in the database (the same function the insert trigger
 * uses) and returns the first broken link of each stream that has one: an event whose stored hash
 * is not the hash of its predecessor's hash and its own type, data and metadata.
 */
export async function verifyChain(db: Pool | PoolClient): Promise<BrokenLink[]> {
  const { rows } = await db.query<Omit<BrokenLink, 'position'> & { position: string }>(
    `SELECT DISTINCT ON (stream_id) stream_id AS "streamId", version, position, encode(coalesce(hash, ''), 'hex') AS stored, encode(expected, 'hex') AS expected
       FROM (SELECT stream_id, version, position, hash,
                    events_link_hash(lag(hash) OVER (PARTITION BY stream_id ORDER BY version), type, data, metadata) AS expected
               FROM events) links
      WHERE hash IS DISTINCT FROM expected
      ORDER BY stream_id, version`,
  );
  return rows.map((row) => ({ ...row, position: Number(row.position) }));
}
