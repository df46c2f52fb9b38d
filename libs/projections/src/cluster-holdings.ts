import type { ClusterHoldings } from '@ipledger/domain';
import { prepared } from '@ipledger/event-store';
import type { Queryable } from './queryable';

// each an index range of its table's key (cluster first); LIMIT keeps it one probe, whatever the cluster holds.
// A StatefulSet's reservation is its statefulsets row (dynamic ones hold no range); an ip-set is a pool range named `<Kind>:<name>`.
const QUERY = `SELECT (SELECT count(*) FROM (SELECT 1 FROM nodes WHERE cluster = $1 LIMIT 1) n)::integer AS nodes,
  (SELECT count(*) FROM (SELECT 1 FROM allocations WHERE cluster = $1 LIMIT 1) a)::integer AS allocations,
  (SELECT count(*) FROM (SELECT 1 FROM statefulsets WHERE cluster = $1 LIMIT 1) s)::integer AS "statefulSets",
  (SELECT count(*) FROM (SELECT 1 FROM pool_ranges WHERE cluster = $1 AND name ~ '^(Deployment|ReplicaSet):' LIMIT 1) r)::integer AS "ipSets"`;

/** Whether a cluster holds any node, allocation, StatefulSet reservation or ip-set (each 0 or 1): a cluster in use is not deleted. */
export async function findClusterHoldings(db: Queryable, cluster: string): Promise<ClusterHoldings> {
  const { rows } = await db.query<ClusterHoldings>(prepared(QUERY, [cluster]));
  return rows[0];
}
