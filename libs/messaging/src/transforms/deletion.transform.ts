import type { KubeKind } from '../kube-kind';
import type { KubeObject } from '../kube-object';
import { pick } from './object-meta.transform';
import { CONTAINER_STATUSES } from './pod.transform';

/**
 * What a DELETED the watcher did not see must carry (a relist found the object gone): identity and
 * version, and of a Pod where it ran and which of its containers were running (may its sandbox
 * still use its address?). No applier reads more of a deleted object, so the watcher's store keeps
 * only this of each live one: a third or less of the trimmed object.
 */
export function forDeletion(kind: KubeKind, object: KubeObject): KubeObject {
  const metadata = pick(object.metadata, ['name', 'namespace', 'uid', 'resourceVersion']) as unknown as KubeObject['metadata'];
  if (kind !== 'pod') return { metadata };
  const spec = pick(object.spec, ['nodeName']);
  const status = pick(object.status, CONTAINER_STATUSES);
  return { metadata, ...(spec && Object.keys(spec).length ? { spec } : {}), ...(status && Object.keys(status).length ? { status } : {}) };
}
