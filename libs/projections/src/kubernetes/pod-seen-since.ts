import type { Queryable } from '../queryable';

/** Whether a watch event reported the pod (`key` namespace/name; this uid, or any when null) live since the last sync. */
export async function podSeenSince(db: Queryable, key: string, uid: string | null): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM kubernetes_objects WHERE kind = 'pod' AND key = $1 AND NOT deleted AND missing_syncs IS NULL AND ($2::text IS NULL OR uid = $2)`,
    [key, uid],
  );
  return rows.length > 0;
}
