import type { Queryable } from '../queryable';

/** An address held for its node, and when that node was last Ready (null when not read). */
export interface HeldAddress {
  handle: string;
  node: string;
  pod_uid: string;
  held_at: Date;
  last_ready_at: Date | null;
}

/** Every address held for this node. */
export async function readHeldForNode(db: Queryable, node: string): Promise<HeldAddress[]> {
  const { rows } = await db.query<HeldAddress>(
    'SELECT handle, node, pod_uid, held_at, NULL AS last_ready_at FROM kubernetes_held_addresses WHERE node = $1 ORDER BY handle',
    [node],
  );
  return rows;
}
