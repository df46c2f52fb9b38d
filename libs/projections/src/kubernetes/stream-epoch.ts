import type { BoundStream } from '@ipledger/messaging';
import type { Pool } from 'pg';

/** Transaction advisory lock key (per database) held while a stream is numbered, so replicas binding at once number it once. */
const STREAM_EPOCH_LOCK_KEY = 4_917_002_125;

/**
 * The epoch of a stream the consumer binds to: the streams are numbered in the order the consumer
 * first bound to each (kubernetes_streams), so a stream made again gets a higher number than any
 * before it, whatever the servers' clocks say (StreamInfo `created` only tells streams apart).
 * The first stream after the upgrade that brought epochs is 0, the epoch of the rows written
 * before: usually the stream they came from. Not when that one was lost meanwhile: a stream's
 * sequence only grows, so a row with a sequence past the bound stream's last is of an older
 * stream, and the bound one is then 1.
 */
export async function streamEpoch(db: Pool, stream: string, bound: BoundStream): Promise<number> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [STREAM_EPOCH_LOCK_KEY]);
    const { rows } = await client.query<{ epoch: string }>(
      `WITH known AS (SELECT epoch FROM kubernetes_streams WHERE stream = $1 AND created = $2),
       added AS (
         INSERT INTO kubernetes_streams (epoch, stream, created)
         SELECT CASE
                  WHEN EXISTS (SELECT FROM kubernetes_streams) THEN (SELECT max(epoch) + 1 FROM kubernetes_streams)
                  WHEN EXISTS (SELECT FROM kubernetes_objects WHERE stream_sequence > $3)
                    OR EXISTS (SELECT FROM kubernetes_node_readiness WHERE stream_sequence > $3) THEN 1
                  ELSE 0 END, $1, $2
          WHERE NOT EXISTS (SELECT FROM known)
         RETURNING epoch)
       SELECT epoch FROM known UNION ALL SELECT epoch FROM added`,
      [stream, bound.created, bound.lastSequence],
    );
    await client.query('COMMIT');
    return Number(rows[0].epoch);
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
