import type { KubeKind, SyncMarker } from '@ipledger/messaging';
import type { Pool } from 'pg';
import { clusterKey } from './cluster-key';

export interface CompleteSync {
  syncId: string;
  /** the watcher's cluster: a sync lists that cluster's objects only */
  cluster: string;
  kind: KubeKind;
  listedAt: Date;
}

/**
 * Stores one chunk of a sync marker; answers the whole sync once every chunk is in and its action
 * has not run yet. A redelivered last chunk answers it again until `markSyncDone`, so an action that
 * failed half way runs again (the actions are idempotent).
 */
export async function recordSyncChunk(db: Pool, cluster: string, marker: SyncMarker): Promise<CompleteSync | null> {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO kubernetes_syncs (sync_id, kind, resource_version, listed_at, chunks, cluster) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (sync_id) DO NOTHING`,
      [marker.syncId, marker.kind, marker.resourceVersion, marker.listedAt, marker.chunks, cluster],
    );
    await client.query(
      `INSERT INTO kubernetes_sync_items (sync_id, key, uid) SELECT $1, * FROM unnest($2::text[], $3::text[]) ON CONFLICT DO NOTHING`,
      [marker.syncId, marker.items.map((i) => clusterKey(cluster, i.key)), marker.items.map((i) => i.uid)],
    );
    const { rows } = await client.query<{ complete: boolean }>(
      `UPDATE kubernetes_syncs
          SET received = CASE WHEN $2 = ANY (received) THEN received ELSE array_append(received, $2) END
        WHERE sync_id = $1
        RETURNING cardinality(received) = chunks AND completed_at IS NULL AS complete`,
      [marker.syncId, marker.chunk],
    );
    await client.query('COMMIT');
    return rows[0].complete ? { syncId: marker.syncId, cluster, kind: marker.kind, listedAt: new Date(marker.listedAt) } : null;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
