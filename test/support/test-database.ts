import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Pool } from 'pg';
import { connectPostgres, postgresConfig, runMigrations, withDatabase } from '@ipledger/event-store';

export const MIGRATIONS_DIR = path.join(__dirname, '../../migrations');

/** the `postgres` database of the server the suites use: jest's global setup starts an embedded one unless set */
const SERVER_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function uniqueDatabaseName(file: string): string {
  return `ipledger_t_${file.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`.toLowerCase();
}

export function databaseUrl(name: string): string {
  return withDatabase(SERVER_URL, name);
}

export async function dropDatabase(name: string): Promise<void> {
  const admin = await connectPostgres(SERVER_URL);
  try {
    await admin.query(`drop database if exists ${admin.escapeIdentifier(name)} with (force)`);
  } finally {
    await admin.end();
  }
}

export interface TestDatabase {
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

/** A fresh, migrated database for one suite, so suites never see each other's rows. */
export async function createTestDatabase(file: string): Promise<TestDatabase> {
  const name = uniqueDatabaseName(file);
  await runMigrations(databaseUrl(name), MIGRATIONS_DIR);
  const url = databaseUrl(name);
  const pool = new Pool({ ...postgresConfig(url), max: 20 });
  // the server is shared: a connection another suite's test terminates while idle fails the next query instead
  pool.on('error', () => undefined);
  return {
    url,
    pool,
    drop: async () => {
      // pool.end() resolves before its clients have closed; a forced drop racing a closing client
      // makes it emit an error nobody listens to. Wait for every client to be gone.
      let open = pool.totalCount;
      const closed = new Promise<void>((resolve) => {
        if (open === 0) resolve();
        pool.on('remove', () => --open === 0 && resolve());
      });
      await pool.end();
      await closed;
      await dropDatabase(name);
    },
  };
}
