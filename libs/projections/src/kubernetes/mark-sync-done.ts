import type { Queryable } from '../queryable';
import type { CompleteSync } from './record-sync-chunk';

/** Marks the sync done and forgets all but the last two complete syncs of its cluster and kind (and stale partial ones). */
export async function markSyncDone(db: Queryable, sync: CompleteSync): Promise<void> {
  await db.query('UPDATE kubernetes_syncs SET completed_at = now() WHERE sync_id = $1', [sync.syncId]);
  await db.query(
    `DELETE FROM kubernetes_syncs s WHERE s.cluster = $2 AND s.kind = $1 AND (
       (s.completed_at IS NOT NULL AND s.sync_id NOT IN (
          SELECT sync_id FROM kubernetes_syncs WHERE cluster = $2 AND kind = $1 AND completed_at IS NOT NULL ORDER BY completed_at DESC LIMIT 2))
       OR (s.completed_at IS NULL AND s.received_at < now() - interval '1 hour'))`,
    [sync.kind, sync.cluster],
  );
}
