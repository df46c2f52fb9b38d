import { namespaceKey, type Reservation } from '@ipledger/domain';
import { prepared } from '@ipledger/event-store';
import { canonicalIp } from '@ipledger/ip';
import { unkeyedSql } from './cluster-key-sql';
import type { Queryable } from './queryable';

/** The last reconciled outcome as recorded, with its cluster and the StatefulSet's stream version. */
export type ReservationView = Reservation & { cluster: string; version: number };

export const STATEFULSET_SELECT = `SELECT cluster, ${unkeyedSql('cluster', 'namespace')} AS namespace, name, replicas, ordinals_start AS "ordinalsStart", pool, mode,
    CASE WHEN range_start IS NULL THEN NULL ELSE json_build_object('start', host(range_start), 'end', host(range_end)) END AS range,
    reason, version
  FROM statefulsets`;

/** PostgreSQL prints some IPv6 addresses dotted: show the service's one canonical text. */
export function canonicalReservation(row: ReservationView): ReservationView {
  return row.range ? { ...row, range: { start: canonicalIp(row.range.start), end: canonicalIp(row.range.end) } } : row;
}

export async function findStatefulSet(db: Queryable, cluster: string, namespace: string, name: string): Promise<ReservationView | null> {
  const { rows } = await db.query<ReservationView>(
    prepared(`${STATEFULSET_SELECT} WHERE namespace = $1 AND name = $2`, [namespaceKey(cluster, namespace), name]),
  );
  return rows[0] ? canonicalReservation(rows[0]) : null;
}

/** The handles holding addresses a StatefulSet owns (its pods'), with their pools: what its deletion releases. */
export async function findStatefulSetHandles(
  db: Queryable,
  cluster: string,
  namespace: string,
  name: string,
): Promise<Array<{ handle: string; pool: string }>> {
  const { rows } = await db.query<{ handle: string; pool: string }>(
    prepared('SELECT handle, pool FROM allocations WHERE namespace = $1 AND statefulset = $2 AND cluster = $3 ORDER BY pool, handle', [
      namespace,
      name,
      cluster,
    ]),
  );
  return rows;
}
