import { allocationOwner, clusterOf, DEFAULT_CLUSTER, type AllocationOwner, type IpAllocated, type StatefulSetRef } from '@ipledger/domain';
import { prepared, type RecordedEvent } from '@ipledger/event-store';
import { canonicalCidr, canonicalIp } from '@ipledger/ip';
import { decodeContinue, encodeContinue } from './continue-token';
import type { Page } from './pool-queries';
import type { Queryable } from './queryable';
import { rfc3339 } from './rfc3339';

export interface AllocationView {
  handle: string;
  /** the cluster of the handle and node */
  cluster: string;
  ip: string;
  prefixLength: number;
  cidr: string;
  pool: string;
  /** the pool's gateway, when it has one */
  gateway?: string;
  node: string;
  namespace: string;
  pod: string;
  podUid: string | null;
  /** pod: leak collection and pod deletes may release it; external: only an explicit release */
  owner: AllocationOwner;
  family: 4 | 6;
  allocatedAt: string;
  /** present when the address belongs to a StatefulSet's pod */
  statefulSet?: StatefulSetRef;
  /** the CNI network it was allocated through, when the request named one */
  network?: string;
  /** present while the pod is deleted but its sandbox may still use the address (see held-for-node in the consumer) */
  heldForNode?: HeldForNode;
  /** present (true) when the address came from another node's block */
  borrowed?: true;
  /** present (true) when a running pod already used the address and the Kubernetes consumer adopted it */
  adopted?: true;
}

export interface HeldForNode {
  node: string;
  /** node-not-ready: deleted while its node was not Ready; containers-running: force-deleted with containers running */
  cause: 'node-not-ready' | 'containers-running';
  since: string;
}

const ALLOCATION_COLUMNS = `a.handle, a.cluster, host(a.ip) AS ip, masklen(p.cidr) AS "prefixLength", p.cidr::text AS cidr, a.pool, host(p.gateway) AS gateway, a.node,
  a.namespace, a.pod, a.pod_uid AS "podUid", a.owner, a.family, ${rfc3339('a.allocated_at')} AS "allocatedAt",
  CASE WHEN a.statefulset IS NULL THEN NULL
       ELSE json_build_object('namespace', a.namespace, 'name', a.statefulset, 'ordinal', a.ordinal) END AS "statefulSet", a.network, a.borrowed, a.adopted`;

export const ALLOCATION_SELECT = `SELECT ${ALLOCATION_COLUMNS} FROM allocations a JOIN pools p ON p.name = a.pool`;

/** With the hold of a deleted pod's address, for the reads that answer GET and lists (the hot path's start needs none). */
const ALLOCATION_READ = `SELECT ${ALLOCATION_COLUMNS},
  CASE WHEN h.handle IS NULL THEN NULL ELSE json_build_object('node', h.node, 'cause', h.cause, 'since', ${rfc3339('h.held_at')}) END AS "heldForNode"
  FROM allocations a JOIN pools p ON p.name = a.pool
  LEFT JOIN kubernetes_held_addresses h ON h.cluster = a.cluster AND h.handle = a.handle AND h.held_at >= a.allocated_at`;

export type AllocationRow = Omit<AllocationView, 'statefulSet' | 'gateway' | 'network' | 'heldForNode' | 'borrowed' | 'adopted'> & {
  borrowed: boolean | null;
  adopted: boolean | null;
  statefulSet: StatefulSetRef | null;
  gateway: string | null;
  network: string | null;
  heldForNode?: HeldForNode | null;
};

/** The optional fields are left out rather than null when they do not apply. */
export const toAllocationView = ({
  statefulSet,
  gateway,
  network,
  heldForNode,
  borrowed,
  adopted,
  ...row
}: AllocationRow): AllocationView => ({
  ...row,
  // PostgreSQL prints some IPv6 addresses dotted: show the service's one canonical text
  ip: canonicalIp(row.ip),
  cidr: canonicalCidr(row.cidr),
  ...(gateway === null ? {} : { gateway: canonicalIp(gateway) }),
  ...(statefulSet ? { statefulSet } : {}),
  ...(network === null ? {} : { network }),
  ...(heldForNode ? { heldForNode } : {}),
  ...(borrowed ? { borrowed: true as const } : {}),
  ...(adopted ? { adopted: true as const } : {}),
});

/**
 * The view of an allocation just recorded, as findAllocationsByHandle would read it back: the
 * allocation path answers from the events it appended instead of querying again.
 */
export function allocationFromEvent(event: RecordedEvent, pool: { cidr: string; gateway: string | null }): AllocationView {
  const d = event.data as IpAllocated['data'];
  return {
    handle: d.handle,
    cluster: clusterOf(d),
    ip: d.ip,
    prefixLength: Number(pool.cidr.split('/')[1]),
    cidr: pool.cidr,
    pool: d.pool,
    ...(pool.gateway === null ? {} : { gateway: pool.gateway }),
    node: d.node,
    namespace: d.namespace,
    pod: d.pod,
    podUid: d.podUid,
    owner: allocationOwner(d),
    family: d.family,
    allocatedAt: event.recordedAt.toISOString(),
    ...(d.statefulSet ? { statefulSet: d.statefulSet } : {}),
    ...(d.network ? { network: d.network } : {}),
    ...(d.borrowed ? { borrowed: d.borrowed } : {}),
    ...(d.adopted ? { adopted: d.adopted } : {}),
  };
}

/** What each of several handles holds now, by handle, IPv4 first (a claim's holding handles: fleet-wide names). */
export async function findAllocationsByHandles(db: Queryable, handles: readonly string[]): Promise<AllocationView[]> {
  const { rows } = await db.query<AllocationRow>(
    prepared(`${ALLOCATION_READ} WHERE a.handle = ANY($1::text[]) ORDER BY a.handle, a.family`, [handles]),
  );
  return rows.map(toAllocationView);
}

/** What a handle of the cluster holds now, IPv4 first. */
export async function findAllocationsByHandle(db: Queryable, handle: string, cluster = DEFAULT_CLUSTER): Promise<AllocationView[]> {
  const { rows } = await db.query<AllocationRow>(
    prepared(`${ALLOCATION_READ} WHERE a.cluster = $1 AND a.handle = $2 ORDER BY a.family`, [cluster, handle]),
  );
  return rows.map(toAllocationView);
}

export interface AllocationFilter {
  /** absent: every cluster's */
  cluster?: string;
  pool?: string;
  node?: string;
  namespace?: string;
  pod?: string;
  network?: string;
}

export async function listAllocations(
  db: Queryable,
  filter: AllocationFilter,
  page: { limit: number; continue?: string },
): Promise<Page<AllocationView>> {
  const after = decodeContinue(page.continue, ['string', 'string', 'smallint']);
  const params: unknown[] = [];
  const where: string[] = [];
  for (const [column, value] of Object.entries(filter)) {
    if (value !== undefined) where.push(`a.${column} = $${params.push(value)}`);
  }
  if (after)
    where.push(`(a.cluster, a.handle, a.family) > ($${params.push(after[0])}, $${params.push(after[1])}, $${params.push(after[2])})`);
  const { rows } = await db.query<AllocationRow>(
    prepared(
      `${ALLOCATION_READ} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY a.cluster, a.handle, a.family LIMIT $${params.push(page.limit + 1)}`,
      params,
    ),
  );
  const items = rows.slice(0, page.limit).map(toAllocationView);
  const last = items[items.length - 1];
  return { items, continue: rows.length > page.limit && last ? encodeContinue([last.cluster, last.handle, last.family]) : null };
}

/** The handles a pod's addresses are held under (allocations_pod index), with the pod uid each was given for; never an external allocation's. */
export async function findPodHandles(
  db: Queryable,
  namespace: string,
  pod: string,
  cluster: string,
): Promise<Array<{ handle: string; podUid: string | null }>> {
  const { rows } = await db.query<{ handle: string; podUid: string | null }>(
    `SELECT DISTINCT handle, pod_uid AS "podUid" FROM allocations WHERE cluster = $3 AND namespace = $1 AND pod = $2 AND owner = 'pod' ORDER BY handle`,
    [namespace, pod, cluster],
  );
  return rows;
}
