import type { KubeObject } from '../kube-object';
import { isRecord, pick, trimmed } from './object-meta.transform';

/** A Pod: where it runs, its phase and addresses. Never its containers (env values), volumes or anything else of its spec. */
export function trimPod(object: KubeObject): KubeObject {
  const status = pick<Record<string, unknown>>(object.status, ['phase']) ?? {};
  const podIPs = object.status?.podIPs;
  if (Array.isArray(podIPs)) status.podIPs = podIPs.filter(isRecord).map((entry) => pick(entry, ['ip']));
  return trimmed(object, pick(object.spec, ['nodeName']), status);
}
