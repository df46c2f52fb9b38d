import type { Queryable } from '../queryable';

/** A suspect dealt with: released, or its pod seen again. */
export async function forgetLeakSuspect(db: Queryable, cluster: string, handle: string): Promise<void> {
  await db.query('DELETE FROM kubernetes_leak_suspects WHERE cluster = $2 AND handle = $1', [handle, cluster]);
}
