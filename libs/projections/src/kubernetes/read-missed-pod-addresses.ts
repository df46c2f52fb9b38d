import { clusterKeySql } from '../cluster-key-sql';
import type { Queryable } from '../queryable';

/** A pod's address (its handle) whose pod a sync did not list. */
export interface MissedPodAddress {
  handle: string;
  namespace: string;
  pod: string;
  pod_uid: string | null;
  allocated_at: Date;
  /** older than the grace period, by the database's clock */
  past_grace: boolean;
}

/**
 * Pods' addresses (owner = pod) allocated before the sync's marker arrived whose pod (that uid,
 * when one was recorded) the sync did not list; an address held for its node is not missed (its
 * pod is gone on purpose, and its own rules free it). Only the sync's cluster's addresses: another
 * cluster's pods are never in its list.
 */
const SYNC_ITEM_KEY = clusterKeySql('a.cluster', "a.namespace || '/' || a.pod");
export async function readMissedPodAddresses(db: Queryable, syncId: string, graceSeconds: number): Promise<MissedPodAddress[]> {
  const { rows } = await db.query<MissedPodAddress>(
    `SELECT handle, min(namespace) AS namespace, min(pod) AS pod, min(pod_uid) AS pod_uid, min(allocated_at) AS allocated_at,
            max(allocated_at) <= now() - make_interval(secs => $2::integer) AS past_grace
       FROM allocations a
       JOIN kubernetes_syncs s ON s.sync_id = $1 AND a.cluster = s.cluster
      WHERE a.owner = 'pod' AND a.allocated_at < s.received_at
        AND NOT EXISTS (SELECT 1 FROM kubernetes_held_addresses h WHERE h.handle = a.handle AND h.cluster = a.cluster)
        AND NOT EXISTS (SELECT 1 FROM kubernetes_sync_items i
                         WHERE i.sync_id = $1 AND i.key = ${SYNC_ITEM_KEY} AND (a.pod_uid IS NULL OR i.uid = a.pod_uid))
      GROUP BY handle`,
    [syncId, graceSeconds],
  );
  return rows;
}
