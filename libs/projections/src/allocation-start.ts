import { clusterOf } from '@ipledger/domain';
import { prepared } from '@ipledger/event-store';
import type { Labels } from '@ipledger/domain';
import { ALLOCATION_SELECT, toAllocationView, type AllocationRow, type AllocationView } from './allocation-queries';
import { clusterLabelsSql } from './cluster-queries';
import { NODE_SELECT, nodeKeySql, type NodeView } from './node-queries';
import { allocationSpaceSql, canonicalPool, POOL_COLUMNS, type PoolView } from './pool-queries';
import { clusterKeySql } from './cluster-key-sql';
import type { Queryable } from './queryable';
import { canonicalReservation, STATEFULSET_SELECT, type ReservationView } from './statefulset-queries';

export interface AllocationStartKey {
  handle: string;
  /** the cluster of the handle and the node; absent: the default cluster */
  cluster?: string;
  namespace: string;
  /** the StatefulSet the pod's name points at; null when it has no ordinal */
  statefulSet: string | null;
  /** the node whose labels the eligibility check needs; null when none is needed (a release) */
  node: string | null;
  /** the pools a `pools` rule names, read here for the eligibility check; empty for other rules */
  pools: readonly string[];
  /** the CNI network the request names, whose space (allocationSpaceSql) is read here; absent: none */
  network?: string;
}

export interface AllocationStart {
  /** what the handle holds already, IPv4 first (a retried request) */
  held: AllocationView[];
  /** the reservation of the StatefulSet the pod may belong to */
  reservation: ReservationView | null;
  node: NodeView | null;
  /** the labels of the handle's cluster (pools' clusterSelector); none for a cluster never labelled */
  clusterLabels: Labels;
  /** the named pools that exist, in the order named */
  pools: PoolView[];
  /** the network's space: that network when some pool has it, else null (the shared space) */
  space: string | null;
  /** the claim the handle is a live reference of (its release drops the reference), null: none */
  claim: string | null;
}

// LIMIT 2: a handle holds one address per family at most (the primary key), and the limit keeps
// the plan an index lookup whatever the statistics say (a generic plan is made once for all calls)
const QUERY = `SELECT (SELECT coalesce(json_agg(h ORDER BY h.family), '[]') FROM (${ALLOCATION_SELECT} WHERE a.cluster = r.cluster AND a.handle = r.handle LIMIT 2) h) AS held,
    (SELECT row_to_json(s) FROM (${STATEFULSET_SELECT} WHERE namespace = ${clusterKeySql('r.cluster', 'r.namespace')} AND name = r.statefulset) s) AS reservation,
    (SELECT row_to_json(n) FROM (${NODE_SELECT} WHERE name = ${nodeKeySql('r.cluster', 'r.node')}) n) AS node,
    ${clusterLabelsSql('r.cluster')} AS "clusterLabels",
    (SELECT coalesce(json_agg(p), '[]') FROM (SELECT ${POOL_COLUMNS} FROM pools p WHERE p.name = ANY(r.pools)) p) AS pools,
    ${allocationSpaceSql('r.network')} AS space,
    (SELECT c.claim FROM claim_references c WHERE c.cluster = r.cluster AND c.handle = r.handle) AS claim
  FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (handle text, cluster text, namespace text, statefulset text, node text, pools text[], network text))
    WITH ORDINALITY r (handle, cluster, namespace, statefulset, node, pools, network, i) ORDER BY r.i`;

interface Row {
  held: AllocationRow[];
  reservation: ReservationView | null;
  node: NodeView | null;
  clusterLabels: Labels | null;
  pools: PoolView[];
  space: string | null;
  claim: string | null;
}

/**
 * What allocations read before they decide, in one round trip for any number of them: each
 * handle's current addresses, the reservation of its pod's StatefulSet, the node, its cluster's
 * labels and the named pools of the eligibility check. In the order asked.
 */
export async function findAllocationStarts(db: Queryable, keys: readonly AllocationStartKey[]): Promise<AllocationStart[]> {
  const records = keys.map((k) => ({
    handle: k.handle,
    cluster: clusterOf(k),
    namespace: k.namespace,
    statefulset: k.statefulSet,
    node: k.node,
    pools: k.pools,
    network: k.network ?? null,
  }));
  const { rows } = await db.query<Row>(prepared(QUERY, [JSON.stringify(records)]));
  return rows.map((row, i) => {
    const byName = new Map(row.pools.map((pool) => [pool.name, canonicalPool(pool)]));
    return {
      held: row.held.map(toAllocationView),
      reservation: row.reservation && canonicalReservation(row.reservation),
      node: row.node,
      clusterLabels: row.clusterLabels ?? {},
      pools: keys[i].pools.flatMap((name) => byName.get(name) ?? []),
      space: row.space,
      claim: row.claim,
    };
  });
}
