import { DEFAULT_KUBE_CLUSTER, type StreamNames } from './subjects';

/** A condition as the API decides it; the watcher adds `lastTransitionTime` when it writes it. */
export interface IpPoolCondition {
  type: 'Ready' | 'Refused';
  status: 'True' | 'False';
  /** `Accepted`, `Parked`, or the API's refusal code (`POOL_OVERLAP`...) */
  reason: string;
  message: string;
  observedGeneration?: number;
}

/** The IPPool's `status` subresource, as the watcher writes it. Counts are decimal strings (an IPv6 pool's exceed int64). */
export interface IpPoolStatus {
  conditions: IpPoolCondition[];
  capacity?: string;
  allocated?: string;
  free?: string;
  observedGeneration?: number;
}

/** What the API publishes for one IPPool: `uid` keeps a status off a recreated object of the same name. */
export interface IpPoolStatusMessage {
  name: string;
  uid: string;
  status: IpPoolStatus;
}

/**
 * Core NATS (not JetStream: the latest state is republished, nothing needs keeping), outside the
 * stream's `<prefix>.>` so the stream never captures it. One subject per cluster (the default
 * cluster's as before clusters): a watcher hears only its own cluster's IPPools.
 */
export const ipPoolStatusSubject = (names: StreamNames, cluster = DEFAULT_KUBE_CLUSTER) =>
  cluster === DEFAULT_KUBE_CLUSTER ? `${names.subjectPrefix}-status.ippool` : `${names.subjectPrefix}-status.${cluster}.ippool`;
