import { clusterOf, namespaceKey } from '@ipledger/domain';
/** An allocation decided without its start read (findAllocationStarts): the keys that read would have looked up. */
export interface UnreadStart {
  handle: string;
  /** the handle's cluster; absent: the default cluster */
  cluster?: string;
  namespace: string;
  /** the StatefulSet the pod's name points at; null when it has no ordinal */
  statefulSet: string | null;
  /** the version of that StatefulSet's reservation the decision used (its stream's); null: it used none */
  reservationVersion: number | null;
  /** a network the request names that the decision took to be in no pool (it allocated in the shared space) */
  networkInNoPool?: string;
}

// Both by primary key, whatever the batch and the statistics: allocations (handle, family),
// statefulsets (namespace key, name). A lookup per key in a scalar subquery (LIMIT 1 keeps it one),
// as the start read does: as a join or `= ANY`, the generic plan scanned allocations whole.
const CONDITION = `NOT EXISTS (SELECT 1 FROM jsonb_to_recordset($2::jsonb -> 'handles') AS h (cluster text, handle text)
                   WHERE (SELECT true FROM allocations a WHERE a.cluster = h.cluster AND a.handle = h.handle LIMIT 1))
  AND NOT EXISTS (SELECT 1 FROM jsonb_to_recordset($2::jsonb -> 'statefulSets') AS g (namespace text, name text, version bigint)
                   WHERE (SELECT s.version FROM statefulsets s WHERE s.namespace = g.namespace AND s.name = g.name LIMIT 1)
                     IS DISTINCT FROM g.version)
  AND NOT EXISTS (SELECT 1 FROM jsonb_array_elements_text($2::jsonb -> 'networks') w (network)
                   WHERE (SELECT true FROM pools p WHERE p.network = w.network LIMIT 1))`;

/**
 * The precondition of allocations decided without their start read, for the append's own
 * statement (appendToStreams' precondition): what that read would have found is still what the
 * decision assumed, no handle holds an address (a retried request) and each pod's StatefulSet has
 * the reservation the decision used (an ordinal's pinned address), at its version, or none when it
 * used none, and no pool has a network the decision took to be in none (its request's space was
 * the shared one). Where any is not so, nothing is appended and they read and decide again.
 */
export function unreadStartPrecondition(starts: readonly UnreadStart[]): { condition: string; value: unknown } {
  return {
    condition: CONDITION,
    value: {
      handles: starts.map((start) => ({ cluster: clusterOf(start), handle: start.handle })),
      statefulSets: starts.flatMap((start) =>
        start.statefulSet === null
          ? []
          : [{ namespace: namespaceKey(clusterOf(start), start.namespace), name: start.statefulSet, version: start.reservationVersion }],
      ),
      networks: starts.flatMap((start) => (start.networkInNoPool === undefined ? [] : [start.networkInNoPool])),
    },
  };
}
