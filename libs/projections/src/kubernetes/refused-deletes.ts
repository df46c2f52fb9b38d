import type { Queryable } from '../queryable';

/** Deleted objects whose delete the domain refused (an IPPool whose pool was in use): tried again at each sync. */
export async function refusedDeletes(db: Queryable, kind: string): Promise<string[]> {
  const { rows } = await db.query<{ key: string }>(
    `SELECT key FROM kubernetes_objects WHERE kind = $1 AND deleted AND status LIKE 'refused:%' ORDER BY key`,
    [kind],
  );
  return rows.map((r) => r.key);
}
