import { KUBE_KINDS, type KubeKind } from './kube-kind';

/** The JetStream stream and the subject namespace it captures (`<prefix>.>`). */
export interface StreamNames {
  stream: string;
  subjectPrefix: string;
}

export const DEFAULT_STREAM_NAMES: StreamNames = { stream: 'IPLEDGER_KUBERNETES', subjectPrefix: 'ipledger.kubernetes' };

/** The cluster of a watcher that names none (IPAM_CLUSTER), and of every message published before clusters existed. */
export const DEFAULT_KUBE_CLUSTER = 'default';

/**
 * Where a cluster's messages go in the one stream every watcher publishes to: the default
 * cluster's keep the subjects of before clusters (`<prefix>.<kind>`), another's carry its name
 * (`<prefix>.<cluster>.<kind>`). A cluster is a DNS label (no dot), and `sync` is no kind, so
 * `<prefix>.pod.sync` (the default cluster's pod syncs) and `<prefix>.pod.node` (cluster `pod`'s
 * Nodes) never read as each other.
 */
const clusterPrefix = (names: StreamNames, cluster: string) =>
  cluster === DEFAULT_KUBE_CLUSTER ? names.subjectPrefix : `${names.subjectPrefix}.${cluster}`;

/** One subject per cluster and kind for object changes (`ipledger.kubernetes.east.pod`), one beside it for sync markers. */
export const changeSubject = (names: StreamNames, kind: KubeKind, cluster = DEFAULT_KUBE_CLUSTER) =>
  `${clusterPrefix(names, cluster)}.${kind}`;
export const syncSubject = (names: StreamNames, kind: KubeKind, cluster = DEFAULT_KUBE_CLUSTER) =>
  `${clusterPrefix(names, cluster)}.${kind}.sync`;

const CLUSTER_NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const isKind = (token: string | undefined): token is KubeKind => KUBE_KINDS.includes(token as KubeKind);

export function parseSubject(names: StreamNames, subject: string): { cluster: string; kind: KubeKind; sync: boolean } | null {
  if (!subject.startsWith(`${names.subjectPrefix}.`)) return null;
  const tokens = subject.slice(names.subjectPrefix.length + 1).split('.');
  const sync = tokens[tokens.length - 1] === 'sync';
  const route = sync ? tokens.slice(0, -1) : tokens;
  if (route.length === 1 && isKind(route[0])) return { cluster: DEFAULT_KUBE_CLUSTER, kind: route[0], sync };
  if (route.length === 2 && CLUSTER_NAME.test(route[0]) && isKind(route[1])) return { cluster: route[0], kind: route[1], sync };
  return null;
}
