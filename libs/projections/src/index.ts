export * from './queryable';
export * from './continue-token';
export * from './label-selector-sql';
export * from './project-events';
export * from './pool-queries';
export * from './node-queries';
export * from './allocation-queries';
export * from './eligible-pools';
