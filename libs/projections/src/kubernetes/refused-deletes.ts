import type { Queryable } from '../queryable';
import { ownKeySql } from './cluster-key';

/** Deleted objects whose delete the domain refused (an IPPool whose pool was in use): tried again at each sync. */
export async function refusedDeletes(db: Queryable, cluster: string, kind: string): Promise<string[]> {
  const { rows } = await db.query<{ key: string }>(
    `SELECT ${ownKeySql('o')} AS key FROM kubernetes_objects o WHERE o.cluster = $2 AND kind = $1 AND deleted AND status LIKE 'refused:%' ORDER BY key`,
    [kind, cluster],
  );
  return rows.map((r) => r.key);
}
