import { DEFAULT_CLUSTER } from './cluster-name';

/**
 * How a cluster's node or handle is told apart from another cluster's of the same name. The
 * default cluster's keep the ids they had before clusters existed (no stored event or stream is
 * rewritten, and a single-cluster user sees no change); another cluster's carry its name.
 */

/** `cluster` in an event or a holder: absent for the default cluster, so events recorded before clusters read as its own. */
export function inCluster(cluster: string): { cluster?: string } {
  return cluster === DEFAULT_CLUSTER ? {} : { cluster };
}

/** The cluster an event or holder names; absent: the default cluster. */
export function clusterOf(data: { cluster?: string }): string {
  return data.cluster ?? DEFAULT_CLUSTER;
}

/**
 * A name as a cluster's own: itself in the default cluster (as before clusters), `<cluster>/<name>`
 * in another. A cluster name is a DNS label, with no `/`, so another cluster's never meets a
 * default name of the same kind (which has a fixed number of `/`).
 */
export function clusterScopedName(cluster: string, name: string): string {
  return cluster === DEFAULT_CLUSTER ? name : `${cluster}/${name}`;
}

/** A node's stream id (a node name, a DNS subdomain, holds no `/`). */
export const nodeStreamId = clusterScopedName;

/** A namespace's key, for what is keyed by namespace and name (StatefulSets, ip-sets, their ranges). */
export const namespaceKey = clusterScopedName;

/**
 * A handle's key within a pool: the handle itself in the default cluster. A handle may hold any
 * character but NUL (the log's JSON cannot store one), so NUL separates another cluster's name.
 */
export function handleKey(cluster: string, handle: string): string {
  return cluster === DEFAULT_CLUSTER ? handle : `${cluster}\u0000${handle}`;
}
