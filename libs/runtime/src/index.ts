export * from './backoff';
export * from './env';
export * from './log';
export * from './redact';
export * from './process-metrics';
