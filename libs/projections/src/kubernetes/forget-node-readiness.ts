import type { Queryable } from '../queryable';

/** The node is deleted: its readiness goes with it (an unknown node counts as Ready). */
export async function forgetNodeReadiness(db: Queryable, node: string): Promise<void> {
  await db.query('DELETE FROM kubernetes_node_readiness WHERE node = $1', [node]);
}
