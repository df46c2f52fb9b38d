import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { databaseUrl, dropDatabase, MIGRATIONS_DIR, uniqueDatabaseName } from '../../../test/support/test-database';
import { runMigrations } from './migrate';

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('runMigrations', () => {
  const created: string[] = [];
  const fresh = (): string => {
    const name = uniqueDatabaseName('migrate');
    created.push(name);
    return databaseUrl(name);
  };
  let allFiles: string[];

  beforeAll(async () => {
    allFiles = (await readdir(MIGRATIONS_DIR)).filter((name) => /^\d{3}_.+\.sql$/.test(name)).sort();
  });

  afterAll(async () => {
    for (const name of created) await dropDatabase(name);
  });

  it('creates the missing database, applies every file once, and nothing on a second run', async () => {
    const url = fresh();
    const lines: string[] = [];

    expect(await runMigrations(url, MIGRATIONS_DIR, (line) => lines.push(line))).toEqual(allFiles);
    expect(allFiles).toContain('001_event_store.sql');
    expect(lines).toContain('applying migration 001_event_store.sql');
    expect(await runMigrations(url, MIGRATIONS_DIR)).toEqual([]);

    const recorded = await query<{ name: string }>(url, 'select name from schema_migrations order by name');
    expect(recorded.map((row) => row.name)).toEqual(allFiles);
    const tables = await query<{ t: string }>(
      url,
      "select to_regclass('events')::text as t union all select to_regclass('snapshots')::text",
    );
    expect(tables.map((row) => row.t)).toEqual(['events', 'snapshots']);
  });

  it('creates the missing database behind a host list (every host answers 3D000)', async () => {
    const url = new URL(fresh());
    // the same server twice: the walk over the hosts ends in one error for both, not in a DatabaseError
    url.searchParams.set('target_session_attrs', 'read-write');
    const hostList = url.href.replace(`@${url.host}/`, `@${url.host},${url.host}/`);
    expect(hostList).toContain(`${url.host},${url.host}/`);

    expect(await runMigrations(hostList, MIGRATIONS_DIR)).toEqual(allFiles);
    const [{ count }] = await query<{ count: string }>(url.href, 'select count(*) from schema_migrations');
    expect(Number(count)).toBe(allFiles.length);
  });

  it('lets several processes migrate a fresh database at the same time', async () => {
    const url = fresh();

    const runs = await Promise.all(Array.from({ length: 6 }, () => runMigrations(url, MIGRATIONS_DIR)));

    expect(runs.flat().sort()).toEqual(allFiles);
    const [{ count }] = await query<{ count: string }>(url, 'select count(*) from schema_migrations');
    expect(Number(count)).toBe(allFiles.length);
  });

  it('rolls back a failing migration with its record, keeping the ones before it', async () => {
    const url = fresh();
    const dir = await mkdtemp(path.join(tmpdir(), 'ipledger-migrations-'));
    try {
      await writeFile(path.join(dir, '001_ok.sql'), 'create table ok (id int);');
      await writeFile(path.join(dir, '002_bad.sql'), 'create table half (id int); select 1/0;');
      await writeFile(path.join(dir, 'notes.txt'), 'not a migration');

      await expect(runMigrations(url, dir)).rejects.toThrow(/migration 002_bad\.sql failed: division by zero/);

      const recorded = await query<{ name: string }>(url, 'select name from schema_migrations');
      expect(recorded.map((row) => row.name)).toEqual(['001_ok.sql']);
      const [{ half }] = await query<{ half: string | null }>(url, "select to_regclass('half')::text as half");
      expect(half).toBeNull();
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  it('refuses a database a newer release migrated, naming what it does not know, and applies none of its own', async () => {
    const url = fresh();
    const dir = await mkdtemp(path.join(tmpdir(), 'ipledger-migrations-'));
    try {
      await writeFile(path.join(dir, '001_ok.sql'), 'create table ok (id int);');
      await runMigrations(url, dir);
      // a newer release added 003; this release's 002 has never been applied
      await query(url, "insert into schema_migrations (name) values ('003_newer.sql')");
      await writeFile(path.join(dir, '002_mine.sql'), 'create table mine (id int);');

      await expect(runMigrations(url, dir)).rejects.toThrow(
        /^the database schema is newer than this release: 003_newer\.sql was applied by a newer release, and migrations only go forward; /,
      );
      const recorded = await query<{ name: string }>(url, 'select name from schema_migrations order by name');
      expect(recorded.map((row) => row.name)).toEqual(['001_ok.sql', '003_newer.sql']);
    } finally {
      await rm(dir, { recursive: true });
    }
  });
});
