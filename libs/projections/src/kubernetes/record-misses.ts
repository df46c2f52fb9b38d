import type { Queryable } from '../queryable';
import type { CompleteSync } from './record-sync-chunk';
import type { StreamPosition } from './stream-position';
import { ownKeySql } from './cluster-key';

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
  db: Queryable,
  sync: CompleteSync,
  previous: string | null,
  marker: StreamPosition,
  graceSeconds: number,
): Promise<VanishedObject[]> {
  const listed = `EXISTS (SELECT FROM kubernetes_sync_items i WHERE i.sync_id = $2::uuid AND i.key = o.key AND i.uid = o.uid)`;
  await db.query(
    `UPDATE kubernetes_objects o SET missing_syncs = NULL WHERE o.cluster = $3 AND o.kind = $1 AND o.missing_syncs IS NOT NULL AND ${listed}`,
    [sync.kind, sync.syncId, sync.cluster],
  );
  const thisSync = JSON.stringify([{ syncId: sync.syncId, listedAt: sync.listedAt.toISOString() }]);
  // a redelivered marker must not count twice, nor a gap between syncs count as consecutive
  await db.query(
    `UPDATE kubernetes_objects o SET missing_syncs = CASE
         WHEN o.missing_syncs -> -1 ->> 'syncId' = $2::text THEN o.missing_syncs
         WHEN o.missing_syncs -> -1 ->> 'syncId' = $4::text THEN o.missing_syncs || $5::jsonb
         ELSE $5::jsonb END
      WHERE o.cluster = $7 AND o.kind = $1 AND NOT o.deleted AND (o.stream_epoch, o.stream_sequence) < ($6, $3) AND NOT ${listed}`,
    [sync.kind, sync.syncId, marker.streamSequence, previous, thisSync, marker.streamEpoch, sync.cluster],
  );
  const { rows } = await db.query<VanishedObject>(
    `SELECT ${ownKeySql('o')} AS key, uid, resource_version AS "resourceVersion", missing_syncs AS "missedBy" FROM kubernetes_objects o
      WHERE o.cluster = $4 AND kind = $1 AND NOT deleted AND missing_syncs -> -1 ->> 'syncId' = $2 AND jsonb_array_length(missing_syncs) >= 2
        AND updated_at <= now() - make_interval(secs => $3::integer)
      ORDER BY key`,
    [sync.kind, sync.syncId, graceSeconds, sync.cluster],
  );
  return rows;
}
