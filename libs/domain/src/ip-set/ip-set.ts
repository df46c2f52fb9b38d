import { parseIp, type IpAddress } from '@ipledger/ip';
import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import { inCluster } from '../cluster/cluster-scope';
import { InvalidInputError } from '../errors/domain-error';

/** On a Deployment's or ReplicaSet's pod template: the workload's own set of addresses (API.md "Pool choice by annotation"). */
export const IP_SET_ANNOTATION = 'ipam.ipledger.io/ip-set';

/** The most addresses one set holds, in either form: as many as a StatefulSet's range (MAX_REPLICAS). */
export const MAX_IP_SET_SIZE = 65_536;

export type IpSetKind = 'Deployment' | 'ReplicaSet';

/** The workload a set belongs to, and so every pod of it, across its ReplicaSets. */
export interface IpSetRef {
  namespace: string;
  kind: IpSetKind;
  name: string;
  /** the workload's cluster; absent: the default cluster (inCluster) */
  cluster?: string;
}

/** What the annotation asks for: `size` addresses anywhere in one pool, or exactly `first..last`. */
export type IpSetWanted = { size: number } | { first: IpAddress; last: IpAddress };

/**
 * An ip-set is held as a range of its pool, like a StatefulSet's; its owner key names the kind, and
 * Kubernetes names hold no ':', so it never meets a StatefulSet's `namespace/name`.
 */
export const ipSetRangeName = (ref: Pick<IpSetRef, 'kind' | 'name'>) => `${ref.kind}:${ref.name}`;

/** The set a pool range belongs to, from its range name; null for a StatefulSet's range. */
export function ipSetOfRange(namespace: string, rangeName: string, cluster: string = DEFAULT_CLUSTER): IpSetRef | null {
  const match = /^(Deployment|ReplicaSet):(.+)$/.exec(rangeName);
  return match ? { namespace, kind: match[1] as IpSetKind, name: match[2], ...inCluster(cluster) } : null;
}

const invalid = (what: string, reason: string) =>
  new InvalidInputError('INVALID_ANNOTATION', `${what}: annotation ${IP_SET_ANNOTATION}: ${reason}`);

/** Reads `<size>` or `<first>-<last>`; null when the annotation is absent. */
export function parseIpSetAnnotation(annotations: Readonly<Record<string, unknown>> | undefined, what: string): IpSetWanted | null {
  const value = annotations?.[IP_SET_ANNOTATION];
  if (value === undefined) return null;
  if (typeof value !== 'string' || value.length > 100) throw invalid(what, 'must be a size or <first>-<last>, at most 100 characters');
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const size = Number(text);
    if (size < 1 || size > MAX_IP_SET_SIZE) throw invalid(what, `size must be 1 to ${MAX_IP_SET_SIZE} (got ${text})`);
    return { size };
  }
  const [firstText, lastText, extra] = text.split('-').map((part) => part.trim());
  if (lastText === undefined || extra !== undefined) throw invalid(what, `"${text.slice(0, 64)}" is neither a size nor <first>-<last>`);
  let first: IpAddress, last: IpAddress;
  try {
    [first, last] = [parseIp(firstText), parseIp(lastText)];
  } catch (err) {
    throw invalid(what, (err as Error).message);
  }
  if (first.family !== last.family || first.value > last.value) throw invalid(what, `${text} is not a range of one family, lowest first`);
  if (last.value - first.value + 1n > BigInt(MAX_IP_SET_SIZE)) throw invalid(what, `${text} holds more than ${MAX_IP_SET_SIZE} addresses`);
  return { first, last };
}

/** The pod-template-hash label a Deployment's ReplicaSets and their pods carry. */
const TEMPLATE_HASH = 'pod-template-hash';

interface PodMeta {
  namespace: string;
  labels?: Readonly<Record<string, string>>;
  ownerReferences?: ReadonlyArray<{ kind?: string; name?: string; controller?: boolean }>;
}

/**
 * The workload whose set a pod uses, from its ownerReferences alone (no ReplicaSet or Deployment
 * watch, no wider RBAC): a ReplicaSet named `<deployment>-<pod-template-hash>` is its Deployment's,
 * so every ReplicaSet of one Deployment shares its set; any other ReplicaSet is a bare one.
 * Null for a pod not owned by a ReplicaSet.
 */
export function podIpSetRef({ namespace, labels, ownerReferences }: PodMeta): IpSetRef | null {
  const owner = ownerReferences?.find((ref) => ref.kind === 'ReplicaSet' && ref.controller !== false && typeof ref.name === 'string');
  if (!owner?.name) return null;
  const hash = labels?.[TEMPLATE_HASH];
  if (hash && owner.name.endsWith(`-${hash}`) && owner.name.length > hash.length + 1) {
    return { namespace, kind: 'Deployment', name: owner.name.slice(0, -(hash.length + 1)) };
  }
  return { namespace, kind: 'ReplicaSet', name: owner.name };
}
