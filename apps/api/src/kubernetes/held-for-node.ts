import { ReleaseIpCommand, type ReleaseReason } from '@ipledger/domain';
import type { KubeObject } from '@ipledger/messaging';
import {
  forgetFreedHolds,
  forgetHeldAddress,
  readHeldForNode,
  readHeldPastGrace,
  type HeldAddress,
  type HeldForNode,
} from '@ipledger/projections';
import type { ApplyContext } from './apply-context';

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

/** Releases held addresses for a rule, recorded in each release event, and forgets them: each in its own cluster. */
async function release(ctx: ApplyContext, held: HeldAddress[], reason: (h: HeldAddress) => ReleaseReason): Promise<string[]> {
  for (const h of held) {
    await ctx.commands.execute(
      new ReleaseIpCommand(h.handle, ctx.metadata, ctx.unit, { podUid: h.pod_uid, reason: reason(h) }, null, h.cluster),
    );
    await forgetHeldAddress(ctx.db, h.cluster, h.handle, h.held_at);
  }
  return held.map((h) => h.handle);
}

/** The node object is gone (of the message's cluster): its sandboxes with it. */
export async function releaseForDeletedNode(ctx: ApplyContext, node: string): Promise<string[]> {
  const released = await release(ctx, await readHeldForNode(ctx.db, ctx.cluster, node), (h) => ({
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
  await forgetFreedHolds(ctx.db);
  return release(ctx, await readHeldPastGrace(ctx.db, graceSeconds), (h) => ({
    cause: 'node-unreachable',
    podUid: h.pod_uid,
    node: h.node,
    heldSince: h.held_at.toISOString(),
    lastReadyAt: h.last_ready_at!.toISOString(),
    graceSeconds,
  }));
}
