export * from './kubeconfig';
export * from './kube-client';
