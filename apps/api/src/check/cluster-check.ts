import { clusterKeySql, ownKeySql, unkeyedSql, type Queryable } from '@ipledger/projections';

export const CHECK_PROBLEM_KINDS = [
  'no-complete-pod-sync',
  'pod-gone',
  'pod-ip-not-allocated',
  'pod-ip-held-by-other',
  'pod-ip-duplicate',
  'pod-holds-several',
  'statefulset-pod-outside-range',
  'held-for-unreachable-node',
] as const;
export type CheckProblemKind = (typeof CHECK_PROBLEM_KINDS)[number];

/** One disagreement between a cluster (its last complete pod sync, its pods' messages) and its allocations. */
export interface CheckProblem {
  /** the cluster it was found in: a fleet's findings read apart */
  cluster: string;
  kind: CheckProblemKind;
  message: string;
  /** the rows that show it, as read */
  evidence: Record<string, unknown>;
}

export interface CheckReport {
  cluster: string;
  checkedAt: string;
  /** the sync the cluster's side comes from; null when no pod sync has completed */
  podSync: { syncId: string; listedAt: string; completedAt: string } | null;
  problems: CheckProblem[];
}

interface Sync {
  sync_id: string;
  listed_at: Date;
  completed_at: Date;
}

type Finding = Omit<CheckProblem, 'cluster'>;

/** A pod object's namespace/name, its cluster's prefix taken off (kubernetes_objects keys another cluster's under it). */
const POD = ownKeySql('o');
/** A StatefulSet reservation's namespace (another cluster's is stored under its key: namespaceKey). */
const STS_NAMESPACE = unkeyedSql('s.cluster', 's.namespace');

/** A column of an allocation the query found by address: null when it is another cluster's ($2 the checked one). */
const OWN = (column: string) => `CASE WHEN a.cluster = $2 THEN ${column} END`;

/**
 * `ipledger check` and GET /v1/check of one cluster: its allocations against its last complete pod
 * sync (which pods exist) and what its pods' messages said of them (node, phase, pod IPs). Read
 * only. Another cluster's allocations are never reported: a pod IP one of them holds names only
 * that cluster.
 */
export async function checkCluster(db: Queryable, cluster: string): Promise<CheckReport> {
  const sync = await lastPodSync(db, cluster);
  const found: Finding[] = [];
  if (!sync) {
    found.push({
      kind: 'no-complete-pod-sync',
      message: `no pod sync of cluster ${cluster} has completed: is its watcher running and the consumer on? pods cannot be compared`,
      evidence: {},
    });
  } else {
    found.push(
      ...(await podsGone(db, sync.sync_id, cluster)),
      ...(await podIps(db, sync.sync_id, cluster)),
      ...(await duplicates(db, sync.sync_id, cluster)),
    );
  }
  found.push(...(await several(db, cluster)));
  found.push(...(await outsideRange(db, cluster)), ...(await heldForUnreachable(db, cluster)));
  return {
    cluster,
    checkedAt: new Date().toISOString(),
    podSync: sync ? { syncId: sync.sync_id, listedAt: sync.listed_at.toISOString(), completedAt: sync.completed_at.toISOString() } : null,
    problems: found.map((problem) => ({ cluster, ...problem })),
  };
}

async function lastPodSync(db: Queryable, cluster: string): Promise<Sync | undefined> {
  const { rows } = await db.query<Sync>(
    `SELECT sync_id, listed_at, completed_at FROM kubernetes_syncs WHERE cluster = $1 AND kind = 'pod' AND completed_at IS NOT NULL
      ORDER BY completed_at DESC LIMIT 1`,
    [cluster],
  );
  return rows[0];
}

async function podsGone(db: Queryable, syncId: string, cluster: string): Promise<Finding[]> {
  const { rows } = await db.query<{ handle: string; ip: string; namespace: string; pod: string; podUid: string | null; node: string }>(
    `SELECT a.handle, host(a.ip) AS ip, a.namespace, a.pod, a.pod_uid AS "podUid", a.node, a.allocated_at AS "allocatedAt"
       FROM allocations a
      WHERE a.cluster = $2 AND a.owner = 'pod' AND a.allocated_at < (SELECT received_at FROM kubernetes_syncs WHERE sync_id = $1)
        AND NOT EXISTS (SELECT 1 FROM kubernetes_sync_items i
                         WHERE i.sync_id = $1 AND i.key = ${clusterKeySql('$2', "a.namespace || '/' || a.pod")} AND (a.pod_uid IS NULL OR i.uid = a.pod_uid))
        AND NOT EXISTS (SELECT 1 FROM kubernetes_held_addresses h WHERE h.cluster = a.cluster AND h.handle = a.handle)
      ORDER BY a.handle, a.family`,
    [syncId, cluster],
  );
  return rows.map((row) => ({
    kind: 'pod-gone',
    message: `${row.ip} (handle ${row.handle}) is held for pod ${row.namespace}/${row.pod}, which the last pod sync did not list`,
    evidence: row,
  }));
}

/**
 * A pod's status names its addresses on the cluster's own network: the shared space, never an
 * isolated network's pools, which the clusters share too. One held in another cluster is reported
 * with that cluster's name alone: the check of one cluster shows none of another's allocations.
 */
async function podIps(db: Queryable, syncId: string, cluster: string): Promise<Finding[]> {
  const { rows } = await db.query<{
    pod: string;
    podUid: string;
    node: string | null;
    podIp: string;
    holderCluster: string | null;
    handle: string | null;
    holder: string | null;
    holderUid: string | null;
  }>(
    `SELECT ${POD} AS pod, o.uid AS "podUid", o.object -> 'spec' ->> 'nodeName' AS node, host(p.ip) AS "podIp", a.cluster AS "holderCluster",
            ${OWN('a.handle')} AS handle, ${OWN("a.namespace || '/' || a.pod")} AS holder, ${OWN('a.pod_uid')} AS "holderUid"
       FROM kubernetes_sync_items i
       JOIN kubernetes_objects o ON o.cluster = $2 AND o.kind = 'pod' AND o.key = i.key AND o.uid = i.uid AND NOT o.deleted
       CROSS JOIN LATERAL (SELECT (x ->> 'ip')::inet AS ip FROM jsonb_array_elements(coalesce(o.object -> 'status' -> 'podIPs', '[]')) x) p
       LEFT JOIN allocations a ON a.ip = p.ip AND a.pool_network IS NULL
      WHERE i.sync_id = $1 AND o.object -> 'status' ->> 'phase' = 'Running'
        AND coalesce(o.object -> 'spec' ->> 'hostNetwork', 'false') <> 'true'
        AND EXISTS (SELECT 1 FROM pools pl WHERE pl.cidr >>= p.ip AND pl.network IS NULL)
        AND (a.handle IS NULL OR a.cluster <> $2 OR a.namespace || '/' || a.pod <> ${POD} OR a.pod_uid <> o.uid)
      ORDER BY o.key, p.ip`,
    [syncId, cluster],
  );
  return rows.map((row) =>
    row.holderCluster === null
      ? {
          kind: 'pod-ip-not-allocated',
          message: `running pod ${row.pod} has pod IP ${row.podIp}, inside a pool, which no allocation holds`,
          evidence: { pod: row.pod, podUid: row.podUid, node: row.node, podIp: row.podIp },
        }
      : {
          kind: 'pod-ip-held-by-other',
          message:
            row.holderCluster === cluster
              ? `running pod ${row.pod} has pod IP ${row.podIp}, which handle ${row.handle} holds for ${row.holder}`
              : `running pod ${row.pod} has pod IP ${row.podIp}, which cluster ${row.holderCluster} holds`,
          evidence: row,
        },
  );
}

/**
 * One address that several running pods report (a pod's status outlived its sandbox on a lost
 * node, or the IPAM before ipledger gave it twice): at most one of them holds it, adopted or
 * allocated; the others may still use it.
 */
async function duplicates(db: Queryable, syncId: string, cluster: string): Promise<Finding[]> {
  const { rows } = await db.query<{
    podIp: string;
    pods: Array<{ pod: string; podUid: string; node: string | null }>;
    holder: { cluster: string; handle: string | null; holder: string | null; holderUid: string | null } | null;
  }>(
    `SELECT host(p.ip) AS "podIp",
            json_agg(json_build_object('pod', ${POD}, 'podUid', o.uid, 'node', o.object -> 'spec' ->> 'nodeName') ORDER BY o.key) AS pods,
            (SELECT json_build_object('cluster', a.cluster, 'handle', ${OWN('a.handle')}, 'holder', ${OWN("a.namespace || '/' || a.pod")},
                                      'holderUid', ${OWN('a.pod_uid')})
               FROM allocations a WHERE a.ip = p.ip AND a.pool_network IS NULL) AS holder
       FROM kubernetes_sync_items i
       JOIN kubernetes_objects o ON o.cluster = $2 AND o.kind = 'pod' AND o.key = i.key AND o.uid = i.uid AND NOT o.deleted
       CROSS JOIN LATERAL (SELECT (x ->> 'ip')::inet AS ip FROM jsonb_array_elements(coalesce(o.object -> 'status' -> 'podIPs', '[]')) x) p
      WHERE i.sync_id = $1 AND o.object -> 'status' ->> 'phase' = 'Running'
        AND coalesce(o.object -> 'spec' ->> 'hostNetwork', 'false') <> 'true'
        AND EXISTS (SELECT 1 FROM pools pl WHERE pl.cidr >>= p.ip AND pl.network IS NULL)
      GROUP BY p.ip HAVING count(*) > 1
      ORDER BY p.ip`,
    [syncId, cluster],
  );
  return rows.map((row) => ({
    kind: 'pod-ip-duplicate',
    message:
      `running pods ${row.pods.map((p) => p.pod).join(', ')} all report pod IP ${row.podIp}; ` +
      (!row.holder
        ? 'no allocation holds it'
        : row.holder.cluster === cluster
          ? `handle ${row.holder.handle} holds it for ${row.holder.holder}`
          : `cluster ${row.holder.cluster} holds it`),
    evidence: row,
  }));
}

async function several(db: Queryable, cluster: string): Promise<Finding[]> {
  const { rows } = await db.query<{ pod: string; family: number; network: string | null; held: Array<{ handle: string; ip: string }> }>(
    `SELECT namespace || '/' || pod AS pod, family, network,
            json_agg(json_build_object('handle', handle, 'ip', host(ip), 'podUid', pod_uid) ORDER BY ip) AS held
       FROM allocations WHERE cluster = $1 AND owner = 'pod'
      GROUP BY namespace, pod, family, network HAVING count(*) > 1
      ORDER BY namespace, pod, family`,
    [cluster],
  );
  return rows.map((row) => ({
    kind: 'pod-holds-several',
    message: `pod ${row.pod} holds ${row.held.length} IPv${row.family} addresses on network ${row.network ?? '(none named)'}: ${row.held.map((h) => h.ip).join(', ')}`,
    evidence: row,
  }));
}

async function outsideRange(db: Queryable, cluster: string): Promise<Finding[]> {
  const { rows } = await db.query<{ statefulSet: string; rangeStart: string; rangeEnd: string; pod: string; handle: string; ip: string }>(
    `SELECT ${STS_NAMESPACE} || '/' || s.name AS "statefulSet", host(s.range_start) AS "rangeStart", host(s.range_end) AS "rangeEnd",
            a.namespace || '/' || a.pod AS pod, a.handle, host(a.ip) AS ip
       FROM statefulsets s
       JOIN allocations a ON a.cluster = s.cluster AND a.namespace = ${STS_NAMESPACE} AND a.family = family(s.range_start)
        AND left(a.pod, char_length(s.name) + 1) = s.name || '-'
       CROSS JOIN LATERAL (SELECT CASE WHEN substring(a.pod FROM char_length(s.name) + 2) ~ '^[0-9]{1,9}$'
                                        THEN substring(a.pod FROM char_length(s.name) + 2)::integer END AS ordinal) o
      WHERE s.cluster = $1 AND s.range_start IS NOT NULL AND o.ordinal >= s.ordinals_start AND o.ordinal < s.ordinals_start + s.replicas
        AND NOT (a.ip BETWEEN s.range_start AND s.range_end)
      ORDER BY s.namespace, s.name, a.pod`,
    [cluster],
  );
  return rows.map((row) => ({
    kind: 'statefulset-pod-outside-range',
    message: `pod ${row.pod} of StatefulSet ${row.statefulSet} holds ${row.ip} (handle ${row.handle}), outside its range ${row.rangeStart}-${row.rangeEnd}`,
    evidence: row,
  }));
}

async function heldForUnreachable(db: Queryable, cluster: string): Promise<Finding[]> {
  const { rows } = await db.query<{ handle: string; ip: string; node: string; cause: string; heldSince: Date; lastReadyAt: Date | null }>(
    `SELECT h.handle, host(a.ip) AS ip, h.node, h.cause, h.namespace || '/' || h.pod AS pod, h.held_at AS "heldSince",
            r.last_ready_at AS "lastReadyAt"
       FROM kubernetes_held_addresses h
       JOIN allocations a ON a.cluster = h.cluster AND a.handle = h.handle AND a.allocated_at <= h.held_at
       LEFT JOIN kubernetes_node_readiness r ON r.node = ${clusterKeySql('h.cluster', 'h.node')}
      WHERE h.cluster = $1 AND r.ready IS DISTINCT FROM true
      ORDER BY h.handle, a.family`,
    [cluster],
  );
  return rows.map((row) => ({
    kind: 'held-for-unreachable-node',
    message: `${row.ip} (handle ${row.handle}) is held for node ${row.node}, ${row.lastReadyAt ? 'not Ready' : 'unknown'}: freed by its CNI DEL, its deletion or the grace period`,
    evidence: row,
  }));
}
