import { ReleaseIpCommand, type ReleaseReason } from '@ipledger/domain';
import {
  forgetLeakSuspect,
  podSeenSince,
  readLeakSuspects,
  readMissedPodAddresses,
  replaceLeakSuspects,
  type CompleteSync,
  type SyncRef,
} from '@ipledger/projections';
import type { ApplyContext } from './apply-context';

export interface LeakReport {
  suspects: number;
  released: string[];
}

/**
 * Only pods' addresses are ever collected (owner = pod): an external allocation (a VM, a load
 * balancer) has no pod to miss, so no sync is evidence against it; nor is an address held for its
 * node (its pod is gone on purpose, and its own rules free it).
 * Addresses whose pod vanished while nobody watched (its delete never reached us) are released once
 * two consecutive pod syncs did not list the pod and the address is older than the grace period.
 * Only addresses allocated before a sync's marker arrived count as missed by it (one false miss of
 * an address allocated between the list and then is harmless: two consecutive ones are needed),
 * and just before releasing, the pod is looked up once more among the pods the watch has reported
 * since. Every time here is the database's (allocated_at, received_at, now()): the watcher's
 * listedAt is only recorded.
 */
export async function collectLeaks(
  ctx: ApplyContext,
  sync: CompleteSync,
  previous: string | null,
  graceSeconds: number,
): Promise<LeakReport> {
  const { db } = ctx;
  const missing = await readMissedPodAddresses(db, sync.syncId, graceSeconds);
  const earlier = await readLeakSuspects(
    db,
    sync.cluster,
    missing.map((m) => m.handle),
  );
  const thisSync: SyncRef = { syncId: sync.syncId, listedAt: sync.listedAt.toISOString() };
  const suspected = missing.map((m) => {
    const before = earlier.get(m.handle) ?? [];
    const last = before[before.length - 1]?.syncId;
    // a redelivered sync marker must not count twice, nor a gap between syncs count as consecutive
    const syncs = last === sync.syncId ? before : last !== undefined && last === previous ? [...before, thisSync] : [thisSync];
    return { ...m, syncs };
  });
  await replaceLeakSuspects(db, sync.cluster, suspected);
  const due = suspected.filter((s) => s.syncs.length >= 2 && s.past_grace);
  const released: string[] = [];
  for (const leak of due) {
    if (!(await podSeenSince(db, sync.cluster, `${leak.namespace}/${leak.pod}`, leak.pod_uid))) {
      const reason: ReleaseReason = {
        cause: 'pod-missing',
        syncs: leak.syncs,
        allocatedAt: leak.allocated_at.toISOString(),
        graceSeconds,
      };
      await ctx.commands.execute(
        new ReleaseIpCommand(leak.handle, ctx.metadata, ctx.unit, { podUid: leak.pod_uid ?? undefined, reason }, null, sync.cluster),
      );
      released.push(leak.handle);
    }
    await forgetLeakSuspect(db, sync.cluster, leak.handle);
  }
  return { suspects: suspected.length - due.length, released };
}
