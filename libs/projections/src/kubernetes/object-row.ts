import type { KubeObject } from '@ipledger/messaging';
import type { StreamPosition } from './stream-position';

/** An object's row in kubernetes_objects, as a message of it leaves it: the last message applied (or parked) and what was done. */
export interface ObjectRow extends StreamPosition {
  /** the watcher's cluster (IPAM_CLUSTER) */
  cluster: string;
  kind: string;
  /** namespace/name, or name */
  key: string;
  uid: string;
  resourceVersion: string;
  deleted: boolean;
  status: string;
  /** the (trimmed) object, for the kinds whose object is kept; null for the others and once deleted */
  object: KubeObject | null;
}
