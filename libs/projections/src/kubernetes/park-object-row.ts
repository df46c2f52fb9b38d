import type { Queryable } from '../queryable';
import { clusterKey } from './cluster-key';
import type { ObjectRow } from './object-row';

/**
 * Sets a message aside that kept failing: the object's status says why, and its stream sequence
 * is kept so that `unpark` can have it applied again (its stream is the row's stream_epoch). A
 * newer message of the object replaces it.
 */
export async function parkObjectRow(db: Queryable, row: Omit<ObjectRow, 'object'>): Promise<void> {
  await db.query(
    `INSERT INTO kubernetes_objects (kind, key, uid, resource_version, stream_epoch, stream_sequence, deleted, status, parked_sequence, cluster)
     VALUES ($1, $2, $3, $4, $8, $5, $6, $7, $5, $9)
     ON CONFLICT (kind, key) DO UPDATE SET uid = $3, resource_version = $4, stream_epoch = $8, stream_sequence = $5, status = $7,
       parked_sequence = $5, unpark_requested = false, updated_at = now()
     WHERE (kubernetes_objects.stream_epoch, kubernetes_objects.stream_sequence) <= ($8, $5)`,
    [
      row.kind,
      clusterKey(row.cluster, row.key),
      row.uid,
      row.resourceVersion,
      row.streamSequence,
      row.deleted,
      row.status,
      row.streamEpoch,
      row.cluster,
    ],
  );
}
