import type { KubeObject } from '../kube-object';
import { isRecord, pick, trimmed } from './object-meta.transform';

export const CONTAINER_STATUSES = ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses'];

/**
 * A Pod: where it runs (and whether on the host's network), its phase and addresses, and of each
 * container only its state's name (running, waiting, terminated: may a deleted pod's sandbox still
 * use its address?). Never its containers (env values), volumes or anything else of its spec.
 */
export function trimPod(object: KubeObject): KubeObject {
  const status = pick<Record<string, unknown>>(object.status, ['phase']) ?? {};
  const podIPs = object.status?.podIPs;
  if (Array.isArray(podIPs)) status.podIPs = podIPs.filter(isRecord).map((entry) => pick(entry, ['ip']));
  for (const key of CONTAINER_STATUSES) {
    const statuses = object.status?.[key];
    if (!Array.isArray(statuses)) continue;
    const states = (statuses as unknown[])
      .filter(isRecord)
      .flatMap((entry) => (isRecord(entry.state) ? [{ state: stateName(entry.state) }] : []));
    if (states.length) status[key] = states;
  }
  return trimmed(object, pick(object.spec, ['nodeName', 'hostNetwork']), status);
}

const stateName = (state: Record<string, unknown>) => Object.fromEntries(Object.keys(state).map((name) => [name, {}]));
