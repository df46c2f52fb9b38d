import type { KubeObject } from '../kube-object';
import { trimmed } from './object-meta.transform';

/** A Namespace: its labels and ipledger's annotations (the pool choice of its pods); nothing of its spec or status. */
export function trimNamespace(object: KubeObject): KubeObject {
  return trimmed(object);
}
