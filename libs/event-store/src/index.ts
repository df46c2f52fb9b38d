export * from './aggregate-repository';
export * from './append-to-streams';
export * from './concurrency-error';
export * from './migrate';
export * from './read-all';
export * from './read-snapshot';
export * from './read-stream';
export type { NewEvent, RecordedEvent } from './recorded-event';
export * from './write-snapshot';
