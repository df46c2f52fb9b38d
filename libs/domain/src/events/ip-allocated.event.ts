import type { AllocationOwner } from '../allocation/allocation-owner';
import type { IpSetRef } from '../ip-set/ip-set';

/** The StatefulSet a pod belongs to, and its ordinal: such an address is the StatefulSet's to release. */
export interface StatefulSetRef {
  namespace: string;
  name: string;
  ordinal: number;
}

export interface IpAllocated {
  type: 'IpAllocated';
  data: {
    pool: string;
    ip: string;
    family: 4 | 6;
    handle: string;
    /** the cluster of the handle and node; absent: the default cluster (every event recorded before clusters) */
    cluster?: string;
    node: string;
    namespace: string;
    pod: string;
    podUid: string | null;
    /** absent in events recorded before owners were: read it through allocationOwner() */
    owner?: AllocationOwner;
    statefulSet?: StatefulSetRef;
    /** the Deployment or ReplicaSet whose ip-set the address came from */
    ipSet?: IpSetRef;
    /** the CNI network (its config's `name`) the address was allocated through, for CNI GC */
    network?: string;
    /** present (true) when the address came from another node's block */
    borrowed?: true;
    /** present (true) when a running pod already used the address before ipledger knew it (adoption: a cluster moving from another IPAM) */
    adopted?: true;
    /** the pool's isolated network, the space the address is unique in; absent: the shared space */
    poolNetwork?: string;
  };
}
