import type { Queryable } from '../queryable';
import { clusterKey } from './cluster-key';

/** Whether a watch event reported the pod (`key` namespace/name; this uid, or any when null) live since the last sync. */
export async function podSeenSince(db: Queryable, cluster: string, key: string, uid: string | null): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM kubernetes_objects WHERE kind = 'pod' AND key = $1 AND NOT deleted AND missing_syncs IS NULL AND ($2::text IS NULL OR uid = $2)`,
    [clusterKey(cluster, key), uid],
  );
  return rows.length > 0;
}
