import type { Pool } from 'pg';

/** Addresses that two handles hold at once, in the log itself: IpAllocated events no release has undone, by address. */
export async function heldTwice(pool: Pool): Promise<number> {
  const { rows } = await pool.query(
    `SELECT a.data ->> 'ip' AS ip FROM events a
      WHERE a.type = 'IpAllocated'
        AND NOT EXISTS (SELECT 1 FROM events r WHERE r.type = 'IpReleased' AND r.data ->> 'handle' = a.data ->> 'handle'
                          AND r.data ->> 'ip' = a.data ->> 'ip' AND r.position > a.position)
      GROUP BY 1 HAVING count(*) > 1`,
  );
  return rows.length;
}
