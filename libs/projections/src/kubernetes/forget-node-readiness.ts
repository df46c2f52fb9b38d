import type { Queryable } from '../queryable';
import { clusterKey } from './cluster-key';

/** The node is deleted: its readiness goes with it (an unknown node counts as Ready). */
export async function forgetNodeReadiness(db: Queryable, cluster: string, node: string): Promise<void> {
  await db.query('DELETE FROM kubernetes_node_readiness WHERE node = $1', [clusterKey(cluster, node)]);
}
