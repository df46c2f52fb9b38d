import type { KubeObject } from '@ipledger/messaging';
import type { Queryable } from '../queryable';

/**
 * Live StatefulSets that have no range: refused (their pool did not exist yet, say) or dynamic
 * (no continuous run was free). Pools come and go, and addresses are released, so they are
 * reconciled again at each sync; a reconcile that changes nothing appends nothing.
 */
export async function statefulSetsWithoutRange(db: Queryable, cluster: string): Promise<KubeObject[]> {
  const { rows } = await db.query<{ object: KubeObject }>(
    `SELECT o.object FROM kubernetes_objects o
       LEFT JOIN statefulsets s ON s.cluster = $1 AND o.key = s.namespace || '/' || s.name
      WHERE o.cluster = $1 AND o.kind = 'statefulset' AND NOT o.deleted AND o.object IS NOT NULL AND (o.status LIKE 'refused:%' OR s.mode = 'dynamic')
      ORDER BY o.key`,
    [cluster],
  );
  return rows.map((r) => r.object);
}
