import type { QueryConfig, QueryResult, QueryResultRow } from 'pg';

/** A pg Pool or a client inside a transaction: projections and queries run on either. */
export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(config: QueryConfig | string, values?: unknown[]): Promise<QueryResult<R>>;
}
