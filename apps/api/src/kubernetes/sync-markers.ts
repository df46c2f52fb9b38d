import type { KubeKind, SyncMarker } from '@ipledger/messaging';
import type { Pool } from 'pg';

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
       OR (s.completed_at IS NULL AND s.listed_at < now() - interval '1 hour'))`,
    [sync.kind],
  );
}

/** Objects the consumer believed live that a complete sync does not list were deleted while nobody watched. */
export async function markUnlistedDeleted(db: Pool, sync: CompleteSync, streamSequence: number): Promise<void> {
  await db.query(
    `UPDATE kubernetes_objects o SET deleted = true, status = 'absent from sync ' || $2, updated_at = now()
      WHERE o.kind = $1 AND NOT o.deleted AND o.stream_sequence < $3
        AND NOT EXISTS (SELECT 1 FROM kubernetes_sync_items i WHERE i.sync_id = $2 AND i.key = o.key AND i.uid = o.uid)`,
    [sync.kind, sync.syncId, streamSequence],
  );
}
