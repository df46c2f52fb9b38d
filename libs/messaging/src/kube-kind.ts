/** The Kubernetes kinds the watcher follows; each has its own subject. */
export const KUBE_KINDS = [
  'node',
  'pod',
  'statefulset',
  'ippool',
  'namespace',
  'deployment',
  'replicaset',
  'virtualmachine',
  'virtualmachineinstance',
  'ipamclaim',
] as const;
export type KubeKind = (typeof KUBE_KINDS)[number];

/** Kinds whose objects live in a namespace (the others are cluster-scoped). */
export const NAMESPACED_KINDS: ReadonlySet<KubeKind> = new Set<KubeKind>([
  'pod',
  'statefulset',
  'deployment',
  'replicaset',
  'virtualmachine',
  'virtualmachineinstance',
  'ipamclaim',
]);

/**
 * Kinds served by a CustomResourceDefinition that a cluster may not have (KubeVirt, the IPAMClaims
 * of k8snetworkplumbingwg): the watcher follows them only while the API server serves them.
 */
export const OPTIONAL_KINDS: ReadonlySet<KubeKind> = new Set<KubeKind>(['virtualmachine', 'virtualmachineinstance', 'ipamclaim']);

/** Where each kind is listed and watched on the Kubernetes API server (all namespaces). */
export const KUBE_RESOURCE_PATHS: Record<KubeKind, string> = {
  node: '/api/v1/nodes',
  pod: '/api/v1/pods',
  statefulset: '/apis/apps/v1/statefulsets',
  ippool: '/apis/ipam.ipledger.io/v1alpha1/ippools',
  namespace: '/api/v1/namespaces',
  deployment: '/apis/apps/v1/deployments',
  replicaset: '/apis/apps/v1/replicasets',
  virtualmachine: '/apis/kubevirt.io/v1/virtualmachines',
  virtualmachineinstance: '/apis/kubevirt.io/v1/virtualmachineinstances',
  ipamclaim: '/apis/k8s.cni.cncf.io/v1alpha1/ipamclaims',
};
