import { DomainError } from '../errors/domain-error';
import { handleKey } from '../cluster/cluster-scope';
import type { PoolView } from '../pool/pool-state';
import { allocationOwner, type AllocationOwner } from './allocation-owner';

/**
 * A credential bound to a node: a CNI plugin's (a static token naming the node, or the node's
 * ServiceAccount token). As Kubernetes' NodeRestriction admission limits a kubelet to its own node,
 * it may allocate and release only for the pods of its node, so one compromised node cannot free or
 * take the rest of the cluster's addresses. Null where a request's credential is bound to no node
 * (an admin, an allocator of the whole cluster, the Kubernetes consumer): nothing here limits it.
 */
export interface NodeRestriction {
  node: string;
}

/** What an allocation says about whom it is for. */
export interface AddressHolder {
  node: string;
  owner?: AllocationOwner;
  podUid: string | null;
}

const refuse = (restriction: NodeRestriction, what: string) =>
  new DomainError('NODE_FORBIDDEN', `a credential of node "${restriction.node}" ${what}: that needs the admin role`);

/**
 * An allocation for a pod of the credential's own node, by the request's own words: never for
 * another node, never an external address (a VM's, a load balancer's: an operator's to make).
 */
export function assertNodeMayAllocate(
  restriction: NodeRestriction | null,
  request: { node: string; owner: AllocationOwner; namespace: string; pod: string },
): void {
  if (!restriction) return;
  if (request.node !== restriction.node) throw refuse(restriction, `may not allocate for node "${request.node}"`);
  if (request.owner === 'external')
    throw refuse(
      restriction,
      `may not allocate an external address (owner "external", or no podUid) for ${request.namespace}/${request.pod}`,
    );
}

/**
 * The pod as the Kubernetes consumer knows it must run on the credential's node: a node cannot take
 * another node's pod's address (a StatefulSet ordinal's, before the real pod asks). `podNode`: the
 * node the consumer knows the pod bound to; null when it knows the pod bound to none; undefined
 * when it knows nothing of pods (the consumer off), where only the request's own words are checked.
 */
export function assertPodOnNode(
  restriction: NodeRestriction | null,
  pod: { namespace: string; pod: string },
  podNode?: string | null,
): void {
  if (!restriction || podNode === undefined || podNode === restriction.node) return;
  throw refuse(
    restriction,
    `may not allocate for pod ${pod.namespace}/${pod.pod}, which runs on ${podNode === null ? 'no node yet' : `node "${podNode}"`}`,
  );
}

/** Every address the handle holds must be a pod's of the credential's node: to release it, or to be answered it. */
export function assertNodeMayHold(restriction: NodeRestriction | null, handle: string, holders: Iterable<AddressHolder>): void {
  if (!restriction) return;
  for (const holder of holders) {
    if (holder.node !== restriction.node) throw refuse(restriction, `may not act on handle "${handle}", held by node "${holder.node}"`);
    if (allocationOwner(holder) === 'external') throw refuse(restriction, `may not act on handle "${handle}", an external address`);
  }
}

/** assertNodeMayHold on what the handle holds in this pool, as the release is decided (no read before it to go stale). */
export function assertNodeMayRelease(restriction: NodeRestriction | null, state: PoolView, handle: string, cluster: string): void {
  const ip = state.byHandle.get(handleKey(cluster, handle));
  const holder = ip === undefined ? undefined : state.holders.get(ip);
  assertNodeMayHold(restriction, handle, holder ? [holder] : []);
}

/** A claim's reference is dropped by a node's credential only when the reference's pod is on that node. */
export function assertNodeMayDropReference(
  restriction: NodeRestriction | null,
  handle: string,
  reference: { node: string } | undefined,
): void {
  if (!restriction || !reference || reference.node === restriction.node) return;
  throw refuse(restriction, `may not drop handle "${handle}", a claim's reference on node "${reference.node}"`);
}
