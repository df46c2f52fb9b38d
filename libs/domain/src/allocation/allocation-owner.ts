/**
 * Who an address is for. `pod`: a Kubernetes pod (a CNI ADD, or any request naming a podUid); its
 * address may be released when the pod is deleted or vanishes (leak collection). `external`: a VM,
 * a load balancer, a router: only an explicit release lets it go.
 */
export type AllocationOwner = 'pod' | 'external';

export const ALLOCATION_OWNERS: readonly AllocationOwner[] = ['pod', 'external'];

/**
 * The owner of an allocation, also of one recorded before owners were (IpAllocated without
 * `owner`): a pod when a podUid was given, else external. Taking away an address still in use
 * hands it out twice, while an uncollected leak costs one address until an operator releases it,
 * so an allocation nothing proves to be a pod's is never collected. (allocation.projection.ts
 * states the same rule in SQL.)
 */
export function allocationOwner(recorded: { owner?: AllocationOwner; podUid: string | null }): AllocationOwner {
  return recorded.owner ?? (recorded.podUid === null ? 'external' : 'pod');
}
