import type { Queryable } from '../queryable';
import type { StreamPosition } from './stream-position';
import { clusterKey } from './cluster-key';

/**
 * Records what a Node message says of its readiness, unless a newer message did already (see
 * StreamPosition). The time is the database's: the moment a message found the node Ready, or
 * found it no longer so.
 */
export async function recordNodeReadiness(
  db: Queryable,
  cluster: string,
  node: string,
  ready: boolean,
  position: StreamPosition,
): Promise<void> {
  await db.query(
    `INSERT INTO kubernetes_node_readiness (node, ready, last_ready_at, stream_epoch, stream_sequence) VALUES ($1, $2, now(), $4, $3)
     ON CONFLICT (node) DO UPDATE SET ready = $2, stream_epoch = $4, stream_sequence = $3,
       last_ready_at = CASE WHEN $2 OR kubernetes_node_readiness.ready THEN now() ELSE kubernetes_node_readiness.last_ready_at END
     WHERE (kubernetes_node_readiness.stream_epoch, kubernetes_node_readiness.stream_sequence) < ($4, $3)`,
    [clusterKey(cluster, node), ready, position.streamSequence, position.streamEpoch],
  );
}
