import type { KubeKind, SyncMarker } from '@ipledger/messaging';
import type { Pool } from 'pg';
import type { StreamPosition } from './stream-epochs';

export interface CompleteSync {
  syncId: string;
  kind: KubeKind;
  listedAt: Date;
}

/**
 * Stores one chunk of a sync marker; answers the whole sync once every chunk is in and its action
 * has not run yet. A redelivered last chunk answers it again until `markSyncDone`, so an action that
 * failed half way runs again (the actions are idempotent).
 */
export async function recordSyncChunk(db: Pool, marker: SyncMarker): Promise<CompleteSync | null> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO kubernetes_syncs (sync_id, kind, resource_version, listed_at, chunks) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (sync_id) DO NOTHING`,
      [marker.syncId, marker.kind, marker.resourceVersion, marker.listedAt, marker.chunks],
    );
    await client.query(
      `INSERT INTO kubernetes_sync_items (sync_id, key, uid) SELECT $1, * FROM unnest($2::text[], $3::text[]) ON CONFLICT DO NOTHING`,
      [marker.syncId, marker.items.map((i) => i.key), marker.items.map((i) => i.uid)],
    );
    const { rows } = await client.query<{ complete: boolean }>(
      `UPDATE kubernetes_syncs
          SET received = CASE WHEN $2 = ANY (received) THEN received ELSE array_append(received, $2) END
        WHERE sync_id = $1
        RETURNING cardinality(received) = chunks AND completed_at IS NULL AS complete`,
      [marker.syncId, marker.chunk],
    );
    await client.query('COMMIT');
    return rows[0].complete ? { syncId: marker.syncId, kind: marker.kind, listedAt: new Date(marker.listedAt) } : null;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** The sync of this kind completed before this one, if any: leak evidence needs consecutive syncs. */
export async function previousSync(db: Pool, sync: CompleteSync): Promise<string | null> {
  const { rows } = await db.query<{ sync_id: string }>(
    `SELECT sync_id FROM kubernetes_syncs WHERE kind = $1 AND completed_at IS NOT NULL AND sync_id <> $2
      ORDER BY completed_at DESC LIMIT 1`,
    [sync.kind, sync.syncId],
  );
  return rows[0]?.sync_id ?? null;
}

/** Marks the sync done and forgets all but the last two complete syncs of its kind (and stale partial ones). */
export async function markSyncDone(db: Pool, sync: CompleteSync): Promise<void> {
  await db.query('UPDATE kubernetes_syncs SET completed_at = now() WHERE sync_id = $1', [sync.syncId]);
  await db.query(
    `DELETE FROM kubernetes_syncs s WHERE s.kind = $1 AND (
       (s.completed_at IS NOT NULL AND s.sync_id NOT IN (
          SELECT sync_id FROM kubernetes_syncs WHERE kind = $1 AND completed_at IS NOT NULL ORDER BY completed_at DESC LIMIT 2))
       OR (s.completed_at IS NULL AND s.received_at < now() - interval '1 hour'))`,
    [sync.kind],
  );
}

export interface SyncRef {
  syncId: string;
  listedAt: string;
}

/** An object two consecutive complete syncs did not list, whose last message is older than the grace period. */
export interface VanishedObject {
  key: string;
  uid: string;
  resourceVersion: string;
  missedBy: SyncRef[];
}

/**
 * Objects the consumer believed live that a complete sync does not list (their last message came
 * before the marker: one of a lost stream did, see StreamPosition) may have been deleted while
 * nobody watched: each row keeps the consecutive syncs that missed it; a listed one is cleared, and
 * so is one a later message reports. One miss is not proof (another watcher's newer object, a list
 * racing a create): two consecutive ones and the grace period are. Returns those; the caller
 * deletes them, then marks them deleted.
 */
export async function recordMisses(
  db: Pool,
  sync: CompleteSync,
  previous: string | null,
  marker: StreamPosition,
  graceSeconds: number,
): Promise<VanishedObject[]> {
  const listed = `EXISTS (SELECT FROM kubernetes_sync_items i WHERE i.sync_id = $2::uuid AND i.key = o.key AND i.uid = o.uid)`;
  await db.query(`UPDATE kubernetes_objects o SET missing_syncs = NULL WHERE o.kind = $1 AND o.missing_syncs IS NOT NULL AND ${listed}`, [
    sync.kind,
    sync.syncId,
  ]);
  const thisSync = JSON.stringify([{ syncId: sync.syncId, listedAt: sync.listedAt.toISOString() }]);
  // a redelivered marker must not count twice, nor a gap between syncs count as consecutive
  await db.query(
    `UPDATE kubernetes_objects o SET missing_syncs = CASE
         WHEN o.missing_syncs -> -1 ->> 'syncId' = $2::text THEN o.missing_syncs
         WHEN o.missing_syncs -> -1 ->> 'syncId' = $4::text THEN o.missing_syncs || $5::jsonb
         ELSE $5::jsonb END
      WHERE o.kind = $1 AND NOT o.deleted AND (o.stream_epoch, o.stream_sequence) < ($6, $3) AND NOT ${listed}`,
    [sync.kind, sync.syncId, marker.streamSequence, previous, thisSync, marker.streamEpoch],
  );
  const { rows } = await db.query<VanishedObject>(
    `SELECT key, uid, resource_version AS "resourceVersion", missing_syncs AS "missedBy" FROM kubernetes_objects
      WHERE kind = $1 AND NOT deleted AND missing_syncs -> -1 ->> 'syncId' = $2 AND jsonb_array_length(missing_syncs) >= 2
        AND updated_at <= now() - make_interval(secs => $3::integer)
      ORDER BY key`,
    [sync.kind, sync.syncId, graceSeconds],
  );
  return rows;
}
