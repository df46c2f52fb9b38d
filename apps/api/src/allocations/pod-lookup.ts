import type { AnnotatedPod, ClaimingPod, IpSetRef, IpSetWanted } from '@ipledger/domain';

/**
 * The port through which an allocation learns what Kubernetes holds of its pod and workload. The
 * allocations module owns it; the kubernetes module, which keeps what the watcher sent, implements
 * it (KnownPodLookup), and the app module binds the two: allocations never import kubernetes.
 */
export interface PodLookup {
  /**
   * The pod's and its namespace's annotations as last applied, waiting up to `waitMs` for a pod
   * not seen yet (and, `bound`, for one not yet bound to a node); refused with POD_NOT_SEEN after.
   */
  awaitPod(ref: PodRef, waitMs: number, bound: boolean): Promise<StoredPod>;
  /** The uid of the live Deployment or ReplicaSet of this name; null when none is known. */
  liveWorkloadUid(ref: IpSetRef): Promise<string | null>;
}

/** The Nest token the PodLookup is bound to. */
export const POD_LOOKUP = Symbol('PodLookup');

export interface PodRef {
  namespace: string;
  pod: string;
  /** when given, only the pod of this uid is the one asked about (a StatefulSet pod recreated keeps its name) */
  podUid: string | null;
  /** the pod's cluster (absent: the default cluster): only that cluster's watcher's pod is the one asked about */
  cluster?: string;
}

/** The set a pod's template asks for (its ip-set annotation), and the workload it is for. */
export interface PodIpSet {
  ref: IpSetRef;
  wanted: IpSetWanted;
}

/** What the Kubernetes consumer last applied of a pod and its namespace that an allocation uses. */
export interface StoredPod {
  /** false while the pod asked about has not come */
  podKnown: boolean;
  annotated: AnnotatedPod;
  /** the pod's creationTimestamp (RFC 3339, the API server's clock), null when the pod is not known or has none */
  createdAt: string | null;
  /** the node the pod is bound to (spec.nodeName), null when the pod is not known or not scheduled yet */
  node: string | null;
  /** null when the pod has no ip-set annotation, or no ReplicaSet owns it */
  ipSet: PodIpSet | null;
  /** what may make an attachment of the pod a claim's (claimOfPod: a VM's launcher, an IPAMClaim's reference); null when the pod is not known */
  claiming: Omit<ClaimingPod, 'cluster'> | null;
}
