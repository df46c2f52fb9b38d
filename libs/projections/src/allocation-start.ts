import { prepared } from '@ipledger/event-store';
import { ALLOCATION_SELECT, toAllocationView, type AllocationRow, type AllocationView } from './allocation-queries';
import type { Queryable } from './queryable';
import { STATEFULSET_SELECT, type ReservationView } from './statefulset-queries';

export interface AllocationStart {
  /** what the handle holds already, IPv4 first (a retried request) */
  held: AllocationView[];
  /** the reservation of the StatefulSet the pod may belong to */
  reservation: ReservationView | null;
}

const QUERY = `SELECT (SELECT coalesce(json_agg(h ORDER BY h.family), '[]') FROM (${ALLOCATION_SELECT} WHERE a.handle = $1) h) AS held,
  (SELECT row_to_json(s) FROM (${STATEFULSET_SELECT} WHERE namespace = $2 AND name = $3) s) AS reservation`;

/**
 * What an allocation reads before it decides, in one round trip: the handle's current addresses
 * and the reservation of the pod's StatefulSet (`statefulSet` null: the pod name has no ordinal).
 */
export async function findAllocationStart(
  db: Queryable,
  handle: string,
  namespace: string,
  statefulSet: string | null,
): Promise<AllocationStart> {
  const { rows } = await db.query<{ held: AllocationRow[]; reservation: ReservationView | null }>(
    prepared(QUERY, [handle, namespace, statefulSet]),
  );
  return { held: rows[0].held.map(toAllocationView), reservation: rows[0].reservation };
}
