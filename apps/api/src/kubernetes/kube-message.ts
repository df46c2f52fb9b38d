import {
  KUBE_KINDS,
  NAMESPACED_KINDS,
  objectKey,
  parseSubject,
  trimObject,
  type KubeKind,
  type KubeObject,
  type ObjectChange,
  type StreamNames,
  type SyncMarker,
} from '@ipledger/messaging';

/** A change as the consumer applies it: in the cluster its watcher watches (IPAM_CLUSTER), which its subject names. */
export interface ClusterChange extends ObjectChange {
  cluster: string;
}

/** A sync marker of one cluster: it lists that cluster's objects only. */
export interface ClusterSync extends SyncMarker {
  cluster: string;
}

/** A batch's change that can never be applied stands in its place as MalformedMessage: the batch's others are applied. */
export type KubeMessage = { change: ClusterChange } | { changes: Array<ClusterChange | MalformedMessage> } | { sync: ClusterSync };

/** A message that can never be applied: terminated, logged and counted, never retried. */
export class MalformedMessage extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new MalformedMessage(what);
}

/**
 * Reads what the watcher published, refusing anything that is not an object change, a batch of
 * them (a watcher of this release) or a sync marker.
 * The object is trimmed as the watcher trims it on receipt: a message of an older watcher, which
 * published whole objects, is applied and stored without its env values, volumes or managedFields.
 */
export function parseKubeMessage(names: StreamNames, subject: string, data: Uint8Array): KubeMessage {
  const route = parseSubject(names, subject);
  check(route !== null, `subject ${subject} is not a Kubernetes kind`);
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch {
    throw new MalformedMessage(`${subject}: the body is not JSON`);
  }
  check(isObject(body), `${subject}: the body is not an object`);
  check(body.kind === route.kind && KUBE_KINDS.includes(body.kind as KubeKind), `${subject}: kind ${String(body.kind)} does not match`);
  const { cluster, kind } = route;
  if (route.sync) return { sync: { ...parseSync(body, subject), cluster } };
  return Array.isArray(body.changes)
    ? { changes: parseBatch(body.changes, subject, kind).map((c) => (c instanceof MalformedMessage ? c : { ...c, cluster })) }
    : { change: { ...parseChange(body, subject, kind), cluster } };
}

/** One change per object (the publisher's rule): two of one object in one message would share its stream sequence, and their order be lost. */
function parseBatch(items: unknown[], subject: string, kind: KubeKind): Array<ObjectChange | MalformedMessage> {
  check(items.length > 0, `${subject}: an empty batch`);
  const changes = items.map((item, i) => {
    try {
      check(isObject(item), `${subject}: change ${i} is not an object`);
      return parseChange(item, `${subject} change ${i}`, kind);
    } catch (err) {
      if (err instanceof MalformedMessage) return err;
      throw err;
    }
  });
  const keys = changes.flatMap((c) => (c instanceof MalformedMessage ? [] : [objectKey(c.object)]));
  check(new Set(keys).size === keys.length, `${subject}: an object changes twice in one batch`);
  return changes;
}

function parseChange(body: Record<string, unknown>, subject: string, kind: KubeKind): ObjectChange {
  check(body.type === 'ADDED' || body.type === 'MODIFIED' || body.type === 'DELETED', `${subject}: type ${String(body.type)}`);
  const object = body.object;
  check(isObject(object) && isObject(object.metadata), `${subject}: no object metadata`);
  const { name, uid, resourceVersion, namespace } = object.metadata;
  check(isText(name) && isText(uid) && isText(resourceVersion), `${subject}: metadata needs name, uid and resourceVersion`);
  check(
    NAMESPACED_KINDS.has(kind) === isText(namespace),
    `${subject}: ${name} ${NAMESPACED_KINDS.has(kind) ? 'needs' : 'cannot have'} a namespace`,
  );
  check(object.spec === undefined || isObject(object.spec), `${subject}: ${name} spec is not an object`);
  return { kind, type: body.type, object: trimObject(kind, object as unknown as KubeObject) };
}

function parseSync(body: Record<string, unknown>, subject: string): SyncMarker {
  const { syncId, resourceVersion, listedAt, chunk, chunks, items } = body;
  check(isText(syncId) && /^[0-9a-f-]{36}$/.test(syncId), `${subject}: syncId is not a uuid`);
  check(isText(resourceVersion) && isText(listedAt) && !Number.isNaN(Date.parse(listedAt)), `${subject}: resourceVersion or listedAt`);
  check(Number.isInteger(chunks) && Number.isInteger(chunk) && 0 <= Number(chunk) && Number(chunk) < Number(chunks), `${subject}: chunk`);
  check(
    Array.isArray(items) && items.every((item) => isObject(item) && isText(item.key) && isText(item.uid)),
    `${subject}: items must be [{key, uid}]`,
  );
  return body as unknown as SyncMarker;
}
