import type { Queryable } from '../queryable';
import type { HeldAddress } from './read-held-for-node';
import { clusterKeySql } from '../cluster-key-sql';

/** A held address's node as kubernetes_node_readiness keys it (clusterKey). */
const NODE_KEY = clusterKeySql('h.cluster', 'h.node');

/** Addresses held for a node (of its own cluster) that has not been Ready for the grace period, by the database's clock. */
export async function readHeldPastGrace(db: Queryable, graceSeconds: number): Promise<HeldAddress[]> {
  const { rows } = await db.query<HeldAddress>(
    `SELECT h.handle, h.cluster, h.node, h.pod_uid, h.held_at, r.last_ready_at FROM kubernetes_held_addresses h
       JOIN kubernetes_node_readiness r ON r.node = ${NODE_KEY}
      WHERE NOT r.ready AND r.last_ready_at <= now() - make_interval(secs => $1::integer)
      ORDER BY h.handle`,
    [graceSeconds],
  );
  return rows;
}
