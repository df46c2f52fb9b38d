import { clusterExclusion, type Labels } from '@ipledger/domain';
import { eventClusterSql } from '../cluster-key-sql';
import { clusterLabelsSql } from '../cluster-queries';
import type { Queryable } from '../queryable';
import { ownKeySql } from './cluster-key';

/** An address a running pod reports that it may adopt: inside a pool its cluster may use, held by nobody. */
export interface AdoptionCandidate {
  /** the pod's cluster: the adoption is that cluster's */
  cluster: string;
  /** namespace/name, the pod's own (its cluster's name taken off) */
  key: string;
  uid: string;
  node: string;
  ip: string;
  pool: string;
}

/**
 * The running pods' addresses to adopt (see ../../../../docs/kubernetes.md, "Moving from
 * host-local / Calico / Whereabouts"), one statement for many pods: of these pods (`keys`, as
 * stored: clusterKey; null: all) and in these pools (`pools`, null: all), each address a running
 * pod that is not on the host's network reports (status.podIPs) that lies in a pool, that no
 * allocation of any cluster holds, of a pod that holds no address of its own in its cluster (its
 * CNI ADD was ipledger's: a status still naming an address its sandbox gave back is no address in
 * use), and that was never adopted for this pod before (the log says so, by the index of ip
 * history: an adoption released is not made again). An address two pods report is a candidate for
 * both: the pool aggregate gives it to the first. A pod's status names its addresses on the
 * cluster's own network, so only pools and allocations of the shared space (no isolated network)
 * count: an isolated network may reuse the same addresses. A pool whose clusterSelector leaves the
 * pod's cluster out is no candidate (matched here, as allocation matches it: clusterExclusion).
 */
const CANDIDATES = `SELECT o.cluster, ${ownKeySql('o')} AS key, o.uid, o.object -> 'spec' ->> 'nodeName' AS node, x.ip, pl.name AS pool,
       pl.cluster_selector AS "clusterSelector", CASE WHEN pl.cluster_selector IS NULL THEN NULL ELSE ${clusterLabelsSql('o.cluster')} END AS "clusterLabels"
  FROM kubernetes_objects o
  CROSS JOIN LATERAL (SELECT e ->> 'ip' AS ip FROM jsonb_array_elements(coalesce(o.object -> 'status' -> 'podIPs', '[]')) e) x
  JOIN pools pl ON pl.cidr >>= x.ip::inet AND pl.network IS NULL
 WHERE o.kind = 'pod' AND NOT o.deleted AND ($1::text[] IS NULL OR o.key = ANY ($1)) AND ($2::text[] IS NULL OR pl.name = ANY ($2))
   AND o.object -> 'status' ->> 'phase' = 'Running' AND coalesce(o.object -> 'spec' ->> 'hostNetwork', 'false') <> 'true'
   AND o.object -> 'spec' ->> 'nodeName' IS NOT NULL
   AND NOT EXISTS (SELECT 1 FROM allocations a WHERE a.ip = x.ip::inet AND a.pool_network IS NULL)
   AND NOT EXISTS (SELECT 1 FROM allocations a WHERE a.cluster = o.cluster
                      AND a.namespace = o.object -> 'metadata' ->> 'namespace' AND a.pod = o.object -> 'metadata' ->> 'name'
                      AND a.pod_uid = o.uid AND a.handle <> 'adopted:' || o.uid)
   AND NOT EXISTS (SELECT 1 FROM events e WHERE e.type IN ('IpAllocated', 'IpReleased') AND e.data ->> 'ip' = x.ip
                      AND e.data ->> 'handle' = 'adopted:' || o.uid AND ${eventClusterSql('e.data')} = o.cluster)
 ORDER BY o.cluster, o.key, family(x.ip::inet)`;

interface CandidateRow extends AdoptionCandidate {
  clusterSelector: string | null;
  clusterLabels: Labels | null;
}

export async function adoptionCandidates(
  db: Queryable,
  keys: readonly string[] | null,
  pools: readonly string[] | null,
): Promise<AdoptionCandidate[]> {
  // not prepared: planned with its values, which decide whether the pods or the pools narrow it
  const { rows } = await db.query<CandidateRow>(CANDIDATES, [keys, pools]);
  return rows
    .filter((row) => clusterExclusion(row, { name: row.cluster, labels: row.clusterLabels ?? {} }) === null)
    .map(({ cluster, key, uid, node, ip, pool }) => ({ cluster, key, uid, node, ip, pool }));
}
