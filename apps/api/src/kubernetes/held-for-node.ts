import { ReleaseIpCommand, type ReleaseReason } from '@ipledger/domain';
import type { KubeObject } from '@ipledger/messaging';
import type { HeldForNode, Queryable } from '@ipledger/projections';
import type { ApplyContext } from './apply-context';
import type { StreamPosition } from './stream-epochs';

/** Why a deleted pod's addresses are kept: its sandbox may still use them on the wire. */
export type HoldCause = HeldForNode['cause'];

interface ContainerStatus {
  state?: { running?: unknown };
}

/**
 * Pure: null when releasing a deleted pod's addresses is safe. A pod never scheduled has no
 * sandbox. On a node not Ready nobody stops the sandbox; a pod force-deleted (or deleted on a
 * partitioned node) still shows running containers, which a normal delete has stopped first:
 * the kubelet reports them terminated before it removes the pod.
 */
export function holdCause(pod: KubeObject, nodeReady: boolean | null): HoldCause | null {
  if (!podNode(pod)) return null;
  if (nodeReady === false) return 'node-not-ready';
  const status = (pod.status ?? {}) as Record<string, ContainerStatus[] | undefined>;
  const statuses = [
    ...(status.initContainerStatuses ?? []),
    ...(status.containerStatuses ?? []),
    ...(status.ephemeralContainerStatuses ?? []),
  ];
  return statuses.some((s) => s.state?.running !== undefined) ? 'containers-running' : null;
}

export const podNode = (pod: KubeObject): string | undefined => {
  const name = (pod.spec as { nodeName?: unknown } | undefined)?.nodeName;
  return typeof name === 'string' && name ? name : undefined;
};

/** The node's Ready condition: true, false (False or Unknown), or null when the object carries none. */
export function nodeReadiness(node: KubeObject): boolean | null {
  const conditions = (node.status as { conditions?: Array<{ type?: string; status?: string }> } | undefined)?.conditions;
  const ready = Array.isArray(conditions) ? conditions.find((c) => c?.type === 'Ready') : undefined;
  return ready ? ready.status === 'True' : null;
}

/**
 * Records what a Node message says of its readiness, unless a newer message did already (see
 * StreamPosition). The time is the database's: the moment a message found the node Ready, or
 * found it no longer so.
 */
export async function recordReadiness(db: Queryable, node: string, ready: boolean, position: StreamPosition): Promise<void> {
  await db.query(
    `INSERT INTO kubernetes_node_readiness (node, ready, last_ready_at, stream_epoch, stream_sequence) VALUES ($1, $2, now(), $4, $3)
     ON CONFLICT (node) DO UPDATE SET ready = $2, stream_epoch = $4, stream_sequence = $3,
       last_ready_at = CASE WHEN $2 OR kubernetes_node_readiness.ready THEN now() ELSE kubernetes_node_readiness.last_ready_at END
     WHERE (kubernetes_node_readiness.stream_epoch, kubernetes_node_readiness.stream_sequence) < ($4, $3)`,
    [node, ready, position.streamSequence, position.streamEpoch],
  );
}

export async function forgetReadiness(db: Queryable, node: string): Promise<void> {
  await db.query('DELETE FROM kubernetes_node_readiness WHERE node = $1', [node]);
}

/** null: the node is not known (never seen, or deleted), which counts as Ready. */
export async function readiness(db: Queryable, node: string): Promise<boolean | null> {
  const { rows } = await db.query<{ ready: boolean }>('SELECT ready FROM kubernetes_node_readiness WHERE node = $1', [node]);
  return rows[0]?.ready ?? null;
}

export async function holdForNode(
  db: Queryable,
  handles: string[],
  pod: { namespace: string; name: string; uid: string; node: string },
  cause: HoldCause,
): Promise<void> {
  await db.query(
    `INSERT INTO kubernetes_held_addresses (handle, node, namespace, pod, pod_uid, cause)
     SELECT h, $2, $3, $4, $5, $6 FROM unnest($1::text[]) AS h ON CONFLICT (handle) DO NOTHING`,
    [handles, pod.node, pod.namespace, pod.name, pod.uid, cause],
  );
}

interface Held {
  handle: string;
  node: string;
  pod_uid: string;
  held_at: Date;
  last_ready_at: Date | null;
}

/** Releases held addresses for a rule, recorded in each release event, and forgets them. */
async function release(ctx: ApplyContext, held: Held[], reason: (h: Held) => ReleaseReason): Promise<string[]> {
  for (const h of held) {
    await ctx.commands.execute(new ReleaseIpCommand(h.handle, ctx.metadata, { podUid: h.pod_uid, reason: reason(h) }));
    await ctx.db.query('DELETE FROM kubernetes_held_addresses WHERE handle = $1 AND held_at = $2', [h.handle, h.held_at]);
  }
  return held.map((h) => h.handle);
}

/** The node object is gone: its sandboxes with it. */
export async function releaseForDeletedNode(ctx: ApplyContext, node: string): Promise<string[]> {
  const { rows } = await ctx.db.query<Held>(
    'SELECT handle, node, pod_uid, held_at, NULL AS last_ready_at FROM kubernetes_held_addresses WHERE node = $1 ORDER BY handle',
    [node],
  );
  const released = await release(ctx, rows, (h) => ({
    cause: 'node-deleted',
    podUid: h.pod_uid,
    node,
    heldSince: h.held_at.toISOString(),
  }));
  ctx.metrics.leakReleases.inc({ reason: 'node-deleted' }, released.length);
  return released;
}

/**
 * Addresses held for a node that has not been Ready for the grace period (the database's clock),
 * released; holds whose address is free already (the node's CNI DEL or GC ran) forgotten.
 */
export async function releaseForUnreachableNodes(ctx: ApplyContext, graceSeconds: number): Promise<string[]> {
  await ctx.db.query(
    `DELETE FROM kubernetes_held_addresses h
      WHERE NOT EXISTS (SELECT 1 FROM allocations a WHERE a.handle = h.handle AND a.allocated_at <= h.held_at)`,
  );
  const { rows } = await ctx.db.query<Held>(
    `SELECT h.handle, h.node, h.pod_uid, h.held_at, r.last_ready_at FROM kubernetes_held_addresses h
       JOIN kubernetes_node_readiness r ON r.node = h.node
      WHERE NOT r.ready AND r.last_ready_at <= now() - make_interval(secs => $1::integer)
      ORDER BY h.handle`,
    [graceSeconds],
  );
  return release(ctx, rows, (h) => ({
    cause: 'node-unreachable',
    podUid: h.pod_uid,
    node: h.node,
    heldSince: h.held_at.toISOString(),
    lastReadyAt: h.last_ready_at!.toISOString(),
    graceSeconds,
  }));
}
