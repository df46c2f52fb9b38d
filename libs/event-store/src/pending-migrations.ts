import { DatabaseError, type Pool } from 'pg';
import { migrationFiles } from './migrate';

/**
 * The migrations of `migrationsDir` that the database has not applied, in order: empty when its
 * schema is current (or ahead: a newer release migrated it, which additive migrations allow).
 */
export async function pendingMigrations(db: Pick<Pool, 'query'>, migrationsDir: string): Promise<string[]> {
  let applied: Set<string>;
  try {
    const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations');
    applied = new Set(rows.map((row) => row.name));
  } catch (error) {
    // 42P01 undefined_table: nothing was ever migrated
    if (!(error instanceof DatabaseError && error.code === '42P01')) throw error;
    applied = new Set();
  }
  return (await migrationFiles(migrationsDir)).filter((name) => !applied.has(name));
}
