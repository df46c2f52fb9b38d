/** The Kubernetes kinds the watcher follows; each has its own subject. */
export const KUBE_KINDS = ['node', 'pod', 'statefulset', 'ippool', 'namespace', 'deployment', 'replicaset'] as const;
export type KubeKind = (typeof KUBE_KINDS)[number];

/** Where each kind is listed and watched on the Kubernetes API server (all namespaces). */
export const KUBE_RESOURCE_PATHS: Record<KubeKind, string> = {
  node: '/api/v1/nodes',
  pod: '/api/v1/pods',
  statefulset: '/apis/apps/v1/statefulsets',
  ippool: '/apis/ipam.ipledger.io/v1alpha1/ippools',
  namespace: '/api/v1/namespaces',
  deployment: '/apis/apps/v1/deployments',
  replicaset: '/apis/apps/v1/replicasets',
};
