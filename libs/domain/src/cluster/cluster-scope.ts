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
 * A node's stream id: its name in the default cluster, `<cluster>/<name>` in another. Neither a
 * cluster name (a DNS label) nor a node name (a DNS subdomain) holds a `/`, so no two collide.
 */
export function nodeStreamId(cluster: string, name: string): string {
  return cluster === DEFAULT_CLUSTER ? name : `${cluster}/${name}`;
}

/**
 * A namespace's key, for what is keyed by namespace and name (StatefulSets, ip-sets, their ranges):
 * the namespace in the default cluster, `<cluster>/<namespace>` in another. Neither a cluster name
 * nor a namespace (both DNS labels) holds a `/`, so no two collide.
 */
export function namespaceKey(cluster: string, namespace: string): string {
  return cluster === DEFAULT_CLUSTER ? namespace : `${cluster}/${namespace}`;
}

/**
 * A handle's key within a pool: the handle itself in the default cluster. A handle may hold any
 * character but NUL (the log's JSON cannot store one), so NUL separates another cluster's name.
 */
export function handleKey(cluster: string, handle: string): string {
  return cluster === DEFAULT_CLUSTER ? handle : `${cluster}\u0000${handle}`;
}
