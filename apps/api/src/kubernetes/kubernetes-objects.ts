import { objectKey, type KubeObject, type ObjectChange } from '@ipledger/messaging';
import type { Queryable } from '@ipledger/projections';

/**
 * The stream sequence of the last message applied for an object. JetStream assigns it in publish
 * order, so a redelivered older message (retried after a newer one succeeded) is recognised.
 */
export async function lastAppliedSequence(db: Queryable, change: ObjectChange): Promise<number> {
  const { rows } = await db.query<{ seq: string }>('SELECT stream_sequence AS seq FROM kubernetes_objects WHERE kind = $1 AND key = $2', [
    change.kind,
    objectKey(change.object),
  ]);
  return rows.length ? Number(rows[0].seq) : 0;
}

/** What was done with the object, kept beside it: "why is my IPPool not deleted" has an answer. */
export async function recordObject(db: Queryable, change: ObjectChange, streamSequence: number, status: string): Promise<void> {
  const { metadata } = change.object;
  const kept = change.kind === 'statefulset' && change.type !== 'DELETED' ? change.object : null;
  await db.query(
    `INSERT INTO kubernetes_objects (kind, key, uid, resource_version, stream_sequence, deleted, status, object)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (kind, key) DO UPDATE SET uid = $3, resource_version = $4, stream_sequence = $5, deleted = $6, status = $7, object = $8,
       missing_syncs = NULL, updated_at = now()
     WHERE kubernetes_objects.stream_sequence < $5`,
    [
      change.kind,
      objectKey(change.object),
      metadata.uid,
      metadata.resourceVersion,
      streamSequence,
      change.type === 'DELETED',
      status,
      kept,
    ],
  );
}

/**
 * Live StatefulSets that have no range: refused (their pool did not exist yet, say) or dynamic
 * (no continuous run was free). Pools come and go, and addresses are released, so they are
 * reconciled again at each sync; a reconcile that changes nothing appends nothing.
 */
export async function statefulSetsWithoutRange(db: Queryable): Promise<KubeObject[]> {
  const { rows } = await db.query<{ object: KubeObject }>(
    `SELECT o.object FROM kubernetes_objects o
       LEFT JOIN statefulsets s ON o.key = s.namespace || '/' || s.name
      WHERE o.kind = 'statefulset' AND NOT o.deleted AND o.object IS NOT NULL AND (o.status LIKE 'refused:%' OR s.mode = 'dynamic')
      ORDER BY o.key`,
  );
  return rows.map((r) => r.object);
}

/** Deleted objects whose delete the domain refused (an IPPool whose pool was in use): tried again at each sync. */
export async function refusedDeletes(db: Queryable, kind: string): Promise<string[]> {
  const { rows } = await db.query<{ key: string }>(
    `SELECT key FROM kubernetes_objects WHERE kind = $1 AND deleted AND status LIKE 'refused:%' ORDER BY key`,
    [kind],
  );
  return rows.map((r) => r.key);
}

export async function setStatus(db: Queryable, kind: string, key: string, status: string, deleted?: true): Promise<void> {
  await db.query('UPDATE kubernetes_objects SET status = $3, deleted = deleted OR $4 WHERE kind = $1 AND key = $2', [
    kind,
    key,
    status,
    deleted ?? false,
  ]);
}
