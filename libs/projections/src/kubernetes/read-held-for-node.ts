import type { Queryable } from '../queryable';

/** An address held for its node, and when that node was last Ready (null when not read). */
export interface HeldAddress {
  handle: string;
  /** the handle's and the node's cluster */
  cluster: string;
  node: string;
  pod_uid: string;
  held_at: Date;
  last_ready_at: Date | null;
}

/** Every address held for this node of this cluster. */
export async function readHeldForNode(db: Queryable, cluster: string, node: string): Promise<HeldAddress[]> {
  const { rows } = await db.query<HeldAddress>(
    'SELECT handle, cluster, node, pod_uid, held_at, NULL AS last_ready_at FROM kubernetes_held_addresses WHERE cluster = $1 AND node = $2 ORDER BY handle',
    [cluster, node],
  );
  return rows;
}
