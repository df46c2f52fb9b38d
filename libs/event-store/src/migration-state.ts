import { readdir } from 'node:fs/promises';
import { DatabaseError, type Pool } from 'pg';

const MIGRATION_FILE = /^\d{3}_.+\.sql$/;

/** The `NNN_*.sql` files of a migrations folder, in the order they apply. */
export async function migrationFiles(migrationsDir: string): Promise<string[]> {
  return (await readdir(migrationsDir)).filter((name) => MIGRATION_FILE.test(name)).sort();
}

/** A release's migrations against a database's `schema_migrations`. */
export interface MigrationState {
  /** this release's migrations the database has not applied, in order */
  pending: string[];
  /** migrations the database has applied that this release does not have: a newer release migrated it */
  unknown: string[];
}

export function compareMigrations(files: string[], applied: Iterable<string>): MigrationState {
  const done = new Set(applied);
  const known = new Set(files);
  return {
    pending: files.filter((name) => !done.has(name)),
    unknown: [...done].filter((name) => !known.has(name)).sort(),
  };
}

/** The state of the database's schema against the migrations of `migrationsDir`. */
export async function migrationState(db: Pick<Pool, 'query'>, migrationsDir: string): Promise<MigrationState> {
  let applied: string[];
  try {
    const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations');
    applied = rows.map((row) => row.name);
  } catch (error) {
    // 42P01 undefined_table: nothing was ever migrated
    if (!(error instanceof DatabaseError && error.code === '42P01')) throw error;
    applied = [];
  }
  return compareMigrations(await migrationFiles(migrationsDir), applied);
}
