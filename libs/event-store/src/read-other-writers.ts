import type { PoolClient } from 'pg';

/**
 * Other sessions of this database that hold a transaction id (they have written, or are writing):
 * pg_locks shows every transaction's lock on its own id, whoever's it is (pg_stat_activity hides
 * another role's transaction ids).
 */
export async function readOtherWriters(db: PoolClient): Promise<Array<{ pid: number; application: string }>> {
  const { rows } = await db.query<{ pid: number; application: string }>(
    `select a.pid, a.application_name as application
       from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'transactionid' and l.mode = 'ExclusiveLock' and l.granted
        and a.datname = current_database() and a.pid <> pg_backend_pid()`,
  );
  return rows;
}
