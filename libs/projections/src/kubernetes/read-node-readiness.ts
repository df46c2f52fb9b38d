import type { Queryable } from '../queryable';
import { clusterKey } from './cluster-key';

/** null: the node is not known (never seen, or deleted), which counts as Ready. */
export async function readNodeReadiness(db: Queryable, cluster: string, node: string): Promise<boolean | null> {
  const { rows } = await db.query<{ ready: boolean }>('SELECT ready FROM kubernetes_node_readiness WHERE node = $1', [
    clusterKey(cluster, node),
  ]);
  return rows[0]?.ready ?? null;
}
