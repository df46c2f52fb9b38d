import type { Queryable } from '../queryable';
import type { SyncRef } from './record-misses';

/** The consecutive syncs that missed each of these handles' pods so far (a handle not suspected is absent). */
export async function readLeakSuspects(db: Queryable, cluster: string, handles: readonly string[]): Promise<Map<string, SyncRef[]>> {
  const { rows } = await db.query<{ handle: string; syncs: SyncRef[] }>(
    'SELECT handle, syncs FROM kubernetes_leak_suspects WHERE cluster = $2 AND handle = ANY ($1)',
    [handles, cluster],
  );
  return new Map(rows.map((s) => [s.handle, s.syncs]));
}
