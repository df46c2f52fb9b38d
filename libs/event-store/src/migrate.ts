import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseError } from 'pg';
import { connectPostgres } from './connect-postgres';
import { NoMatchingServerError } from './no-matching-server.error';
import type { PostgresClient } from './postgres-client';
import { parseConnectionString, withDatabase } from './connection-string';
import { compareMigrations, migrationFiles } from './migration-state';
import { SchemaAheadError } from './schema-ahead.error';

/** Session advisory lock key (per database) held while migrating, so replicas starting together take turns. */
const MIGRATION_LOCK_KEY = 4_917_002_113;

/**
 * Applies every `NNN_*.sql` file of `migrationsDir` not yet recorded in `schema_migrations`, in
 * name order, each in its own transaction together with its record. Creates the database first
 * when it is missing. Returns the names applied (empty when the schema is current). Refuses
 * (SchemaAheadError), applying nothing, a database that a newer release migrated.
 */
export async function runMigrations(
  databaseUrl: string,
  migrationsDir: string,
  log: (line: string) => void = () => undefined,
): Promise<string[]> {
  const client = await connectCreatingDatabase(databaseUrl, log);
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      return await applyPending(client, migrationsDir, log);
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}

async function applyPending(client: PostgresClient, migrationsDir: string, log: (line: string) => void): Promise<string[]> {
  await client.query('create table if not exists schema_migrations (name text primary key, applied_at timestamptz default now())');
  const { rows } = await client.query<{ name: string }>('select name from schema_migrations');
  const { pending, unknown } = compareMigrations(
    await migrationFiles(migrationsDir),
    rows.map((row) => row.name),
  );
  if (unknown.length) throw new SchemaAheadError(unknown);

  for (const name of pending) {
    const sql = await readFile(join(migrationsDir, name), 'utf8');
    log(`applying migration ${name}`);
    try {
      await client.query('begin');
      await client.query(sql);
      await client.query('insert into schema_migrations (name) values ($1)', [name]);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback');
      throw new Error(`migration ${name} failed: ${(error as Error).message}`, { cause: error });
    }
  }
  return pending;
}

async function connectCreatingDatabase(databaseUrl: string, log: (line: string) => void): Promise<PostgresClient> {
  try {
    return await connect(databaseUrl);
  } catch (error) {
    // 3D000: database does not exist; behind a host list, every host said so (the walk's one error keeps the code)
    if (!((error instanceof DatabaseError || error instanceof NoMatchingServerError) && error.code === '3D000')) throw error;
  }
  const name = parseConnectionString(databaseUrl).database;
  const admin = await connect(withDatabase(databaseUrl, 'postgres'));
  try {
    await admin.query(`create database ${admin.escapeIdentifier(name)}`);
    log(`created database ${name}`);
  } catch (error) {
    // Another process created it between our connect and our create: that is what we wanted.
    // 42P04 duplicate_database; 23505 when both inserts race on pg_database's unique index.
    if (!(error instanceof DatabaseError && (error.code === '42P04' || error.code === '23505'))) throw error;
  } finally {
    await admin.end();
  }
  return connect(databaseUrl);
}

async function connect(connectionString: string): Promise<PostgresClient> {
  const client = await connectPostgres(connectionString);
  // a lost connection also fails the query in flight, which is what the caller sees; unheard, the
  // 'error' event would end the process instead
  client.on('error', () => undefined);
  return client;
}
