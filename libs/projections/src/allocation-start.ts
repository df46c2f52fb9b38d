import { prepared } from '@ipledger/event-store';
import { ALLOCATION_SELECT, toAllocationView, type AllocationRow, type AllocationView } from './allocation-queries';
import type { Queryable } from './queryable';
import { canonicalReservation, STATEFULSET_SELECT, type ReservationView } from './statefulset-queries';

export interface AllocationStartKey {
  handle: string;
  namespace: string;
  /** the StatefulSet the pod's name points at; null when it has no ordinal */
  statefulSet: string | null;
}

export interface AllocationStart {
  /** what the handle holds already, IPv4 first (a retried request) */
  held: AllocationView[];
  /** the reservation of the StatefulSet the pod may belong to */
  reservation: ReservationView | null;
}

const QUERY = `SELECT (SELECT coalesce(json_agg(h ORDER BY h.family), '[]') FROM (${ALLOCATION_SELECT} WHERE a.handle = r.handle) h) AS held,
    (SELECT row_to_json(s) FROM (${STATEFULSET_SELECT} WHERE namespace = r.namespace AND name = r.statefulset) s) AS reservation
  FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY r (handle, namespace, statefulset, i) ORDER BY r.i`;

/**
 * What allocations read before they decide, in one round trip for any number of them: each
 * handle's current addresses and the reservation of its pod's StatefulSet. In the order asked.
 */
export async function findAllocationStarts(db: Queryable, keys: readonly AllocationStartKey[]): Promise<AllocationStart[]> {
  const { rows } = await db.query<{ held: AllocationRow[]; reservation: ReservationView | null }>(
    prepared(QUERY, [keys.map((k) => k.handle), keys.map((k) => k.namespace), keys.map((k) => k.statefulSet)]),
  );
  return rows.map((row) => ({
    held: row.held.map(toAllocationView),
    reservation: row.reservation && canonicalReservation(row.reservation),
  }));
}
