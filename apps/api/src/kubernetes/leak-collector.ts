import { ReleaseIpCommand, type ReleaseReason } from '@ipledger/domain';
import type { ApplyContext } from './apply-context';
import type { CompleteSync, SyncRef } from './sync-markers';

interface Missing {
  handle: string;
  namespace: string;
  pod: string;
  pod_uid: string | null;
  allocated_at: Date;
  /** older than the grace period, by the database's clock */
  past_grace: boolean;
}

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
  const { rows: missing } = await db.query<Missing>(
    `SELECT handle, min(namespace) AS namespace, min(pod) AS pod, min(pod_uid) AS pod_uid, min(allocated_at) AS allocated_at,
            max(allocated_at) <= now() - make_interval(secs => $2::integer) AS past_grace
       FROM allocations a
      WHERE a.owner = 'pod' AND a.allocated_at < (SELECT received_at FROM kubernetes_syncs WHERE sync_id = $1)
        AND NOT EXISTS (SELECT 1 FROM kubernetes_held_addresses h WHERE h.handle = a.handle)
        AND NOT EXISTS (SELECT 1 FROM kubernetes_sync_items i
                         WHERE i.sync_id = $1 AND i.key = a.namespace || '/' || a.pod AND (a.pod_uid IS NULL OR i.uid = a.pod_uid))
      GROUP BY handle`,
    [sync.syncId, graceSeconds],
  );
  const { rows: suspects } = await db.query<{ handle: string; syncs: SyncRef[] }>(
    'SELECT handle, syncs FROM kubernetes_leak_suspects WHERE handle = ANY ($1)',
    [missing.map((m) => m.handle)],
  );
  const earlier = new Map(suspects.map((s) => [s.handle, s.syncs]));
  const thisSync: SyncRef = { syncId: sync.syncId, listedAt: sync.listedAt.toISOString() };
  const suspected = missing.map((m) => {
    const before = earlier.get(m.handle) ?? [];
    const last = before[before.length - 1]?.syncId;
    // a redelivered sync marker must not count twice, nor a gap between syncs count as consecutive
    const syncs = last === sync.syncId ? before : last !== undefined && last === previous ? [...before, thisSync] : [thisSync];
    return { ...m, syncs };
  });
  await db.query('DELETE FROM kubernetes_leak_suspects WHERE NOT (handle = ANY ($1))', [suspected.map((s) => s.handle)]);
  await db.query(
    `INSERT INTO kubernetes_leak_suspects (handle, namespace, pod, pod_uid, syncs)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS s(handle text, namespace text, pod text, pod_uid text, syncs jsonb)
     ON CONFLICT (handle) DO UPDATE SET syncs = EXCLUDED.syncs`,
    [JSON.stringify(suspected.map(({ handle, namespace, pod, pod_uid, syncs }) => ({ handle, namespace, pod, pod_uid, syncs })))],
  );
  const due = suspected.filter((s) => s.syncs.length >= 2 && s.past_grace);
  const released: string[] = [];
  for (const leak of due) {
    if (!(await podSeenSince(ctx, leak))) {
      const reason: ReleaseReason = {
        cause: 'pod-missing',
        syncs: leak.syncs,
        allocatedAt: leak.allocated_at.toISOString(),
        graceSeconds,
      };
      await ctx.commands.execute(new ReleaseIpCommand(leak.handle, ctx.metadata, { podUid: leak.pod_uid ?? undefined, reason }));
      released.push(leak.handle);
    }
    await db.query('DELETE FROM kubernetes_leak_suspects WHERE handle = $1', [leak.handle]);
  }
  return { suspects: suspected.length - due.length, released };
}

/** The re-check: a watch event may have reported the pod (this uid, or any uid when none was recorded) after the sync. */
async function podSeenSince({ db }: ApplyContext, leak: Missing): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM kubernetes_objects WHERE kind = 'pod' AND key = $1 AND NOT deleted AND missing_syncs IS NULL AND ($2::text IS NULL OR uid = $2)`,
    [`${leak.namespace}/${leak.pod}`, leak.pod_uid],
  );
  return rows.length > 0;
}
