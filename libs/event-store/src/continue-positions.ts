import type { PoolClient } from 'pg';

/** Sets the position sequence past every stored event: positions written explicitly (an import) left it behind. */
export async function continuePositions(db: PoolClient): Promise<void> {
  await db.query(`select setval(pg_get_serial_sequence('events', 'position'), max(position)) from events having count(*) > 0`);
}
