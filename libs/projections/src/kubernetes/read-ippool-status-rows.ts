import type { Queryable } from '../queryable';
import { ownKeySql } from './cluster-key';

/** A live IPPool's row, with its pool's counts (null: no pool of its name). */
export interface IpPoolStatusRow {
  /** the IPPool's cluster: its watcher writes the status */
  cluster: string;
  name: string;
  uid: string;
  status: string;
  generation: string | null;
  capacity: string | null;
  allocated: string | null;
  free: string | null;
}

/**
 * Every live IPPool the consumer has applied, with the counts of the pool as it stands. A message
 * being applied ('applying') is left out: its outcome comes at the next read.
 */
export async function readIpPoolStatusRows(db: Queryable): Promise<IpPoolStatusRow[]> {
  const { rows } = await db.query<IpPoolStatusRow>(
    `SELECT o.cluster, ${ownKeySql('o')} AS name, o.uid, o.status, o.object->'metadata'->>'generation' AS generation,
            p.capacity::text AS capacity, p.allocated::text AS allocated,
            (p.capacity - p.allocated - p.reserved_count - p.range_reserved)::text AS free
       FROM kubernetes_objects o LEFT JOIN pools p ON p.name = ${ownKeySql('o')}
      WHERE o.kind = 'ippool' AND NOT o.deleted AND o.status <> 'applying'
      ORDER BY o.cluster, o.key`,
  );
  return rows;
}
