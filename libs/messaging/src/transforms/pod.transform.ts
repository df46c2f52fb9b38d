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
  const pod = trimmed(object, pick(object.spec, ['nodeName', 'hostNetwork']), status);
  const claims = claimReferences(object.metadata.annotations);
  if (claims) pod.metadata.annotations = { ...pod.metadata.annotations, [NETWORKS_ANNOTATION]: claims };
  return pod;
}

/** Multus' network selection elements; only those naming an IPAMClaim travel (their addresses are claims'). */
const NETWORKS_ANNOTATION = 'k8s.v1.cni.cncf.io/networks';
const ELEMENT_KEYS = ['name', 'namespace', 'interface', 'ipam-claim-reference'];
/** a pod attaches a handful of networks; more elements than this are not a pod's */
const MAX_ELEMENTS = 32;

function claimReferences(annotations: unknown): string | undefined {
  const text = isRecord(annotations) ? annotations[NETWORKS_ANNOTATION] : undefined;
  if (typeof text !== 'string' || !text.includes('ipam-claim-reference')) return undefined;
  let elements: unknown;
  try {
    elements = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(elements)) return undefined;
  const kept = elements
    .slice(0, MAX_ELEMENTS)
    .filter((element) => isRecord(element) && element['ipam-claim-reference'] !== undefined)
    .map((element) => pick(element, ELEMENT_KEYS));
  return kept.length ? JSON.stringify(kept) : undefined;
}

const stateName = (state: Record<string, unknown>) => Object.fromEntries(Object.keys(state).map((name) => [name, {}]));
