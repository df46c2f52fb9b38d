import type { Queryable } from '../queryable';

/** Every pool's name and CIDR: what adoption compares with its last look to find pools created or resized since. */
export async function readPoolCidrs(db: Queryable): Promise<Array<{ name: string; cidr: string }>> {
  const { rows } = await db.query<{ name: string; cidr: string }>('SELECT name, cidr::text AS cidr FROM pools');
  return rows;
}
