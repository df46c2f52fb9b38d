export * from './kube-kind';
export * from './kube-object';
export * from './watch-change';
