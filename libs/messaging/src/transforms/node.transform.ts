import type { KubeObject } from '../kube-object';
import { isRecord, pick, trimmed } from './object-meta.transform';

/** A Node: its labels (pool selection) and its `Ready` condition (whether its pods may still come back); no addresses, images or capacity. */
export function trimNode(object: KubeObject): KubeObject {
  const conditions = object.status?.conditions;
  const ready = Array.isArray(conditions)
    ? conditions
        .filter((condition) => isRecord(condition) && condition.type === 'Ready')
        .map((c) => pick(c, ['type', 'status', 'lastTransitionTime']))
    : [];
  return trimmed(object, undefined, ready.length ? { conditions: ready } : undefined);
}
