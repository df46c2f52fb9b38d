import type { Queryable } from '../queryable';

/** null: the node is not known (never seen, or deleted), which counts as Ready. */
export async function readNodeReadiness(db: Queryable, node: string): Promise<boolean | null> {
  const { rows } = await db.query<{ ready: boolean }>('SELECT ready FROM kubernetes_node_readiness WHERE node = $1', [node]);
  return rows[0]?.ready ?? null;
}
