import { DEFAULT_CLUSTER } from '@ipledger/domain';
import type { Queryable } from '../queryable';

/** An address a running pod reports that it may adopt: inside a pool, held by nobody. */
export interface AdoptionCandidate {
  /** namespace/name */
  key: string;
  uid: string;
  node: string;
  ip: string;
  pool: string;
}

/**
 * The running pods' addresses to adopt (see ../../../../docs/kubernetes.md, "Moving from
 * host-local / Calico / Whereabouts"), one statement for many pods: of these pods (`keys`, null:
 * all) and in these pools (`pools`, null: all), each address a running pod that is not on the
 * host's network reports (status.podIPs) that lies in a pool, that no allocation holds, of a pod
 * that holds no address of its own (its CNI ADD was ipledger's: a status still naming an address
 * its sandbox gave back is no address in use), and that was never adopted for this pod before (the
 * log says so, by the index of ip history: an adoption released is not made again). An address
 * two pods report is a candidate for both: the pool aggregate gives it to the first. A pod's status
 * names its addresses on the cluster's own network, so only the default cluster's pods (AdoptPodIpsCommand
 * adopts into it) and only pools and allocations of the shared
 * space (no isolated network) count: an isolated network may reuse the same addresses.
 */
const CANDIDATES = `SELECT o.key, o.uid, o.object -> 'spec' ->> 'nodeName' AS node, x.ip, pl.name AS pool
  FROM kubernetes_objects o
  CROSS JOIN LATERAL (SELECT e ->> 'ip' AS ip FROM jsonb_array_elements(coalesce(o.object -> 'status' -> 'podIPs', '[]')) e) x
  JOIN pools pl ON pl.cidr >>= x.ip::inet AND pl.network IS NULL
 WHERE o.cluster = '${DEFAULT_CLUSTER}' AND o.kind = 'pod' AND NOT o.deleted AND ($1::text[] IS NULL OR o.key = ANY ($1)) AND ($2::text[] IS NULL OR pl.name = ANY ($2))
   AND o.object -> 'status' ->> 'phase' = 'Running' AND coalesce(o.object -> 'spec' ->> 'hostNetwork', 'false') <> 'true'
   AND o.object -> 'spec' ->> 'nodeName' IS NOT NULL
   AND NOT EXISTS (SELECT 1 FROM allocations a WHERE a.ip = x.ip::inet AND a.pool_network IS NULL)
   AND NOT EXISTS (SELECT 1 FROM allocations a WHERE a.cluster = '${DEFAULT_CLUSTER}' AND a.namespace = split_part(o.key, '/', 1) AND a.pod = split_part(o.key, '/', 2)
                      AND a.pod_uid = o.uid AND a.handle <> 'adopted:' || o.uid)
   AND NOT EXISTS (SELECT 1 FROM events e WHERE e.type IN ('IpAllocated', 'IpReleased') AND e.data ->> 'ip' = x.ip
                      AND e.data ->> 'handle' = 'adopted:' || o.uid)
 ORDER BY o.key, family(x.ip::inet)`;

export async function adoptionCandidates(
  db: Queryable,
  keys: readonly string[] | null,
  pools: readonly string[] | null,
): Promise<AdoptionCandidate[]> {
  // not prepared: planned with its values, which decide whether the pods or the pools narrow it
  const { rows } = await db.query<AdoptionCandidate>(CANDIDATES, [keys, pools]);
  return rows;
}
