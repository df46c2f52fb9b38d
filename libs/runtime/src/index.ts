export * from './backoff';
export * from './env';
