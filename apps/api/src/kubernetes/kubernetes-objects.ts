import { objectKey, trimObject, type KubeKind, type KubeObject, type ObjectChange } from '@ipledger/messaging';
import type { Queryable } from '@ipledger/projections';
import type { StreamPosition } from './stream-epochs';

/**
 * Per message, whether it, or a newer one of its object, was applied to the end (one query for
 * all). Messages are ordered by their StreamPosition, so a redelivered older message is
 * recognised; one whose commands were cut short ('applying': the process died between them) or
 * that was parked is not.
 */
export async function alreadyApplied(
  db: Queryable,
  messages: ReadonlyArray<{ change: ObjectChange } & StreamPosition>,
): Promise<boolean[]> {
  const { rows } = await db.query<{ i: number }>(
    `SELECT t.i FROM jsonb_to_recordset($1) AS t(i int, kind text, key text, epoch bigint, seq bigint)
      WHERE EXISTS (SELECT 1 FROM kubernetes_objects o WHERE o.kind = t.kind AND o.key = t.key
        AND ((o.stream_epoch, o.stream_sequence) > (t.epoch, t.seq)
          OR ((o.stream_epoch, o.stream_sequence) = (t.epoch, t.seq) AND o.status <> 'applying' AND o.parked_sequence IS NULL)))`,
    [
      JSON.stringify(
        messages.map(({ change, streamEpoch, streamSequence }, i) => ({
          i,
          kind: change.kind,
          key: objectKey(change.object),
          epoch: streamEpoch,
          seq: streamSequence,
        })),
      ),
    ],
  );
  const applied = new Set(rows.map((r) => r.i));
  return messages.map((_, i) => applied.has(i));
}

/**
 * The kinds whose (trimmed) object is kept in its row: a StatefulSet, reconciled again at syncs;
 * an IPPool's generation for its status (observedGeneration); a Pod, for where it runs and the
 * addresses the cluster reports (`ipledger check`) and its pool annotations; a Namespace, for its
 * pool annotations (known-pods.ts reads both at allocation).
 */
const KEPT: ReadonlySet<KubeKind> = new Set(['statefulset', 'ippool', 'pod', 'namespace']);

/** A newer message of the object was applied first, by this replica or another: this one must change nothing. */
export class StaleMessage extends Error {}

/** One message to record as its object's last applied one, with what was done. */
export interface Claim extends StreamPosition {
  change: ObjectChange;
  status: string;
}

/**
 * Records the message as the object's last applied one, with what was done ("why is my IPPool not
 * deleted" has an answer), or throws StaleMessage when a newer message was applied. Run inside each
 * transaction that appends the message's events, and in the one that confirms its final status:
 * the row lock orders two replicas' transactions for one object, so the check and the record are
 * one step with the events. A parked message is cleared by any message applied after it.
 */
export async function claimObject(db: Queryable, change: ObjectChange, position: StreamPosition, status: string): Promise<void> {
  const [recorded] = await claimObjects(db, [{ change, ...position, status }]);
  if (!recorded)
    throw new StaleMessage(
      `${change.kind} ${objectKey(change.object)}: a message newer than ${position.streamSequence} (stream epoch ${position.streamEpoch}) was applied`,
    );
}

/**
 * claimObject for many objects in one statement (each key at most once): per claim, whether it
 * was recorded (false: a newer message of its object was applied first).
 */
export async function claimObjects(db: Queryable, claims: readonly Claim[]): Promise<boolean[]> {
  const rows = claims.map(({ change, streamEpoch, streamSequence, status }) => ({
    kind: change.kind,
    key: objectKey(change.object),
    uid: change.object.metadata.uid,
    resource_version: change.object.metadata.resourceVersion,
    stream_epoch: streamEpoch,
    stream_sequence: streamSequence,
    deleted: change.type === 'DELETED',
    status,
    object: change.type !== 'DELETED' && KEPT.has(change.kind) ? change.object : null,
  }));
  const { rows: recorded } = await db.query<{ kind: string; key: string }>(
    `INSERT INTO kubernetes_objects (kind, key, uid, resource_version, stream_epoch, stream_sequence, deleted, status, object)
     SELECT * FROM jsonb_to_recordset($1) AS t(kind text, key text, uid text, resource_version text, stream_epoch bigint,
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

/**
 * Sets a message aside that kept failing: the object's status says why, and its stream sequence
 * is kept so that `unpark` can have it applied again (its stream is the row's stream_epoch). A
 * newer message of the object replaces it.
 */
export async function parkObject(db: Queryable, change: ObjectChange, position: StreamPosition, status: string): Promise<void> {
  const { metadata } = change.object;
  await db.query(
    `INSERT INTO kubernetes_objects (kind, key, uid, resource_version, stream_epoch, stream_sequence, deleted, status, parked_sequence)
     VALUES ($1, $2, $3, $4, $8, $5, $6, $7, $5)
     ON CONFLICT (kind, key) DO UPDATE SET uid = $3, resource_version = $4, stream_epoch = $8, stream_sequence = $5, status = $7,
       parked_sequence = $5, unpark_requested = false, updated_at = now()
     WHERE (kubernetes_objects.stream_epoch, kubernetes_objects.stream_sequence) <= ($8, $5)`,
    [
      change.kind,
      objectKey(change.object),
      metadata.uid,
      metadata.resourceVersion,
      position.streamSequence,
      change.type === 'DELETED',
      status,
      position.streamEpoch,
    ],
  );
}

export interface UnparkRequest {
  kind: string;
  key: string;
  parkedSequence: number;
}

/** A parked message to read back: `created` names the stream it is in (null: one bound before epochs, and lost since). */
export interface ParkedMessage extends UnparkRequest {
  streamEpoch: number;
  created: string | null;
}

/** Parked messages an operator asked to have applied again, each taken by one replica. */
export async function takeUnparkRequests(db: Queryable): Promise<ParkedMessage[]> {
  const { rows } = await db.query<{ kind: string; key: string; seq: string; epoch: string; created: string | null }>(
    `UPDATE kubernetes_objects o SET unpark_requested = false WHERE unpark_requested AND parked_sequence IS NOT NULL
     RETURNING kind, key, parked_sequence AS seq, stream_epoch AS epoch,
       (SELECT created FROM kubernetes_streams s WHERE s.epoch = o.stream_epoch) AS created`,
  );
  return rows.map((r) => ({ kind: r.kind, key: r.key, parkedSequence: Number(r.seq), streamEpoch: Number(r.epoch), created: r.created }));
}

/** `npm run cli -- unpark`: asks the API to apply the parked messages of these objects (all: none named) again. */
export async function requestUnpark(db: Queryable, objects: Array<{ kind: string; key: string }> | 'all'): Promise<UnparkRequest[]> {
  const { rows } = await db.query<{ kind: string; key: string; seq: string }>(
    `UPDATE kubernetes_objects SET unpark_requested = true
      WHERE parked_sequence IS NOT NULL AND ($1::jsonb IS NULL OR (kind, key) IN (SELECT * FROM jsonb_to_recordset($1) AS o(kind text, key text)))
     RETURNING kind, key, parked_sequence AS seq`,
    [objects === 'all' ? null : JSON.stringify(objects)],
  );
  return rows.map((r) => ({ kind: r.kind, key: r.key, parkedSequence: Number(r.seq) }));
}

/** Every parked object with its status, for `npm run cli -- parked`. */
export async function listParked(db: Queryable): Promise<Array<UnparkRequest & { status: string; unparkRequested: boolean }>> {
  const { rows } = await db.query<{ kind: string; key: string; seq: string; status: string; unpark_requested: boolean }>(
    `SELECT kind, key, parked_sequence AS seq, status, unpark_requested FROM kubernetes_objects
      WHERE parked_sequence IS NOT NULL ORDER BY kind, key`,
  );
  return rows.map((r) => ({
    kind: r.kind,
    key: r.key,
    parkedSequence: Number(r.seq),
    status: r.status,
    unparkRequested: r.unpark_requested,
  }));
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

/**
 * Trims the objects an older release stored whole (a StatefulSet's pod template, env values
 * included) as messages are trimmed now. A row a newer message replaced meanwhile is left alone.
 */
export async function trimStoredObjects(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ kind: KubeKind; key: string; epoch: string; seq: string; object: KubeObject }>(
    // only StatefulSets were ever stored whole; pods are stored trimmed from the start (and are many)
    `SELECT kind, key, stream_epoch AS epoch, stream_sequence AS seq, object FROM kubernetes_objects
      WHERE object IS NOT NULL AND kind = 'statefulset'`,
  );
  if (rows.length === 0) return 0;
  const trimmed = rows.map((r) => ({ kind: r.kind, key: r.key, epoch: r.epoch, seq: r.seq, object: trimObject(r.kind, r.object) }));
  const { rowCount } = await db.query(
    `UPDATE kubernetes_objects o SET object = t.object
       FROM jsonb_to_recordset($1) AS t(kind text, key text, epoch bigint, seq bigint, object jsonb)
      WHERE o.kind = t.kind AND o.key = t.key AND (o.stream_epoch, o.stream_sequence) = (t.epoch, t.seq)
        AND o.object IS DISTINCT FROM t.object`,
    [JSON.stringify(trimmed)],
  );
  return rowCount ?? 0;
}
