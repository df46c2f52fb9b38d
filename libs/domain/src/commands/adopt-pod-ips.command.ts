import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import type { CommandMetadata } from '../command-metadata';
import type { UnitOfWork } from '../unit-of-work';

/** A running pod, as the Kubernetes consumer last applied it. */
export interface RunningPod {
  namespace: string;
  pod: string;
  podUid: string;
  node: string;
}

/** One address the pod reports (status.podIPs), with the pool whose CIDR holds it. */
export interface PodAddress {
  pool: string;
  ip: string;
}

/**
 * Adopts the addresses a running pod already uses (a cluster moving from another IPAM): each
 * becomes the pod's, under adoptedHandle(podUid) in the pod's cluster, `adopted: true`, all of them or none.
 */
export class AdoptPodIpsCommand {
  constructor(
    readonly pod: RunningPod,
    readonly addresses: readonly PodAddress[],
    readonly metadata: CommandMetadata,
    /** how its writes commit, named by whoever sends it */
    readonly unit: UnitOfWork,
    /** the pod's cluster: the allocation is that cluster's */
    readonly cluster: string = DEFAULT_CLUSTER,
  ) {}
}
