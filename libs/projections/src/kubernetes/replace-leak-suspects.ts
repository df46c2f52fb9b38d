import type { Queryable } from '../queryable';
import type { SyncRef } from './record-misses';

export interface LeakSuspect {
  handle: string;
  namespace: string;
  pod: string;
  pod_uid: string | null;
  syncs: SyncRef[];
}

/** The cluster's suspects are these now: every other one (its pod listed again) forgotten, these written with the syncs that missed them. */
export async function replaceLeakSuspects(db: Queryable, cluster: string, suspects: readonly LeakSuspect[]): Promise<void> {
  await db.query('DELETE FROM kubernetes_leak_suspects WHERE cluster = $2 AND NOT (handle = ANY ($1))', [
    suspects.map((s) => s.handle),
    cluster,
  ]);
  await db.query(
    `INSERT INTO kubernetes_leak_suspects (handle, namespace, pod, pod_uid, syncs, cluster)
     SELECT *, $2 FROM jsonb_to_recordset($1::jsonb) AS s(handle text, namespace text, pod text, pod_uid text, syncs jsonb)
     ON CONFLICT (handle) DO UPDATE SET syncs = EXCLUDED.syncs`,
    [JSON.stringify(suspects.map(({ handle, namespace, pod, pod_uid, syncs }) => ({ handle, namespace, pod, pod_uid, syncs }))), cluster],
  );
}
