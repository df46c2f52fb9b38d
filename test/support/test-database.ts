import { runMigrations } from '@ipledger/event-store';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';

export const SERVER_URL = process.env.TEST_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
export const MIGRATIONS = join(__dirname, '../../migrations');

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Each suite gets a database of its own, migrated, so suites never see each other's rows. */
export async function createTestDatabase(suite: string): Promise<TestDatabase> {
  const name = `ipledger_t_${suite.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`.toLowerCase();
  const url = `${SERVER_URL}/${name}`;
  await runMigrations(url, MIGRATIONS);
  return {
    url,
    name,
    async drop() {
      const admin = new Client({ connectionString: `${SERVER_URL}/postgres` });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    },
  };
}
