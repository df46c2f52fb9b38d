import type { Queryable } from '../queryable';
import type { CompleteSync } from './record-sync-chunk';

/** The sync of this cluster and kind completed before this one, if any: leak evidence needs consecutive syncs. */
export async function previousSync(db: Queryable, sync: CompleteSync): Promise<string | null> {
  const { rows } = await db.query<{ sync_id: string }>(
    `SELECT sync_id FROM kubernetes_syncs WHERE cluster = $3 AND kind = $1 AND completed_at IS NOT NULL AND sync_id <> $2
      ORDER BY completed_at DESC LIMIT 1`,
    [sync.kind, sync.syncId, sync.cluster],
  );
  return rows[0]?.sync_id ?? null;
}
