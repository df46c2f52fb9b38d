import { prepared } from '@ipledger/event-store';
import type { Queryable } from './queryable';

export interface ClusterHoldings {
  nodes: number;
  allocations: number;
}

// each an index range of its table's primary key (cluster first); LIMIT keeps it one probe, whatever the cluster holds
const QUERY = `SELECT (SELECT count(*) FROM (SELECT 1 FROM nodes WHERE cluster = $1 LIMIT 1) n)::integer AS nodes,
  (SELECT count(*) FROM (SELECT 1 FROM allocations WHERE cluster = $1 LIMIT 1) a)::integer AS allocations`;

/** Whether a cluster holds any node or allocation (each 0 or 1): a cluster in use is not deleted. */
export async function findClusterHoldings(db: Queryable, cluster: string): Promise<ClusterHoldings> {
  const { rows } = await db.query<ClusterHoldings>(prepared(QUERY, [cluster]));
  return rows[0];
}
