import type { Queryable } from '../queryable';

/** A hold released: forgotten, unless the handle was held again since. */
export async function forgetHeldAddress(db: Queryable, cluster: string, handle: string, heldAt: Date): Promise<void> {
  await db.query('DELETE FROM kubernetes_held_addresses WHERE cluster = $3 AND handle = $1 AND held_at = $2', [handle, heldAt, cluster]);
}
