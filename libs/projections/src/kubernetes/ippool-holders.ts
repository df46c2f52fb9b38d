import type { Queryable } from '../queryable';
import { ownKeySql } from './cluster-key';

/**
 * The clusters whose live IPPool object of this name holds the pool: its last message was
 * accepted (created or applied), so the pool is as that object says.
 */
export async function ipPoolHolders(db: Queryable, name: string): Promise<string[]> {
  const { rows } = await db.query<{ cluster: string }>(
    `SELECT o.cluster FROM kubernetes_objects o
      WHERE o.kind = 'ippool' AND ${ownKeySql('o')} = $1 AND NOT o.deleted AND o.status IN ('created', 'applied')
      ORDER BY o.cluster`,
    [name],
  );
  return rows.map((r) => r.cluster);
}
