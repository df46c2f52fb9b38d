import { DEFAULT_CLUSTER } from '@ipledger/domain';

/**
 * The cluster whose pods, syncs, node readiness, held addresses and leak suspects the Kubernetes
 * consumer records (the kubernetes_* tables), and whose StatefulSets have ranges: the default one,
 * as long as the watcher names no cluster. What reads those rows per cluster (check, the held-address
 * gauges) finds none of them in another cluster.
 */
export const WATCHED_CLUSTER = DEFAULT_CLUSTER;
