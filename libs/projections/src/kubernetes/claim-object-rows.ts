import type { Queryable } from '../queryable';
import { clusterKey } from './cluster-key';
import type { ObjectRow } from './object-row';

/**
 * Records each row as its object's last applied message, in one statement (each key at most
 * once), unless a newer message of the object was recorded: per row, whether it was. A parked
 * message is cleared by any message recorded after it, and so are the object's misses.
 */
export async function claimObjectRows(db: Queryable, claims: readonly ObjectRow[]): Promise<boolean[]> {
  const rows = claims.map((c) => ({
    cluster: c.cluster,
    kind: c.kind,
    key: clusterKey(c.cluster, c.key),
    uid: c.uid,
    resource_version: c.resourceVersion,
    stream_epoch: c.streamEpoch,
    stream_sequence: c.streamSequence,
    deleted: c.deleted,
    status: c.status,
    object: c.object,
  }));
  const { rows: recorded } = await db.query<{ kind: string; key: string }>(
    `INSERT INTO kubernetes_objects (cluster, kind, key, uid, resource_version, stream_epoch, stream_sequence, deleted, status, object)
     SELECT * FROM jsonb_to_recordset($1) AS t(cluster text, kind text, key text, uid text, resource_version text, stream_epoch bigint,
       stream_sequence bigint, deleted boolean, status text, object jsonb)
     ON CONFLICT (kind, key) DO UPDATE SET uid = excluded.uid, resource_version = excluded.resource_version,
       stream_epoch = excluded.stream_epoch, stream_sequence = excluded.stream_sequence, deleted = excluded.deleted,
       status = excluded.status, object = excluded.object,
       missing_syncs = NULL, parked_sequence = NULL, unpark_requested = false, updated_at = now()
     WHERE (kubernetes_objects.stream_epoch, kubernetes_objects.stream_sequence) <= (excluded.stream_epoch, excluded.stream_sequence)
     RETURNING kind, key`,
    [JSON.stringify(rows)],
  );
  const done = new Set(recorded.map((r) => `${r.kind}\0${r.key}`));
  return rows.map((r) => done.has(`${r.kind}\0${r.key}`));
}
