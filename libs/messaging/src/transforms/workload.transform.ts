import type { KubeObject } from '../kube-object';
import { trimmed } from './object-meta.transform';

/**
 * A Deployment or ReplicaSet: its identity and owners only. The API learns from it only that the
 * workload is gone (its ip-set is released); its pods carry the set's annotation and, through
 * their ownerReferences, the workload's name. Nothing of its spec or status.
 */
export function trimWorkload(object: KubeObject): KubeObject {
  return trimmed(object);
}
