import type { Queryable } from '../queryable';

/** Holds whose address is free already (the node's CNI DEL or GC ran), or given again since, forgotten. */
export async function forgetFreedHolds(db: Queryable): Promise<void> {
  await db.query(
    `DELETE FROM kubernetes_held_addresses h
      WHERE NOT EXISTS (SELECT 1 FROM allocations a WHERE a.cluster = h.cluster AND a.handle = h.handle AND a.allocated_at <= h.held_at)`,
  );
}
