export * from './durable-consumer';
export * from './ensure-stream';
export * from './kube-kind';
export * from './kube-object';
export * from './kube-publisher';
export * from './message-id';
export * from './subjects';
export * from './watch-change';
