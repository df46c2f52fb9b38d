import { Client } from 'pg';
import { runCli } from '../src/cli';
import { databaseUrl, dropDatabase, uniqueDatabaseName } from '../../../test/support/test-database';

/** The CLI inspects a database without changing it: only `migrate` (and `replay --rebuild`) apply migrations. */
describe('ipledger CLI and migrations', () => {
  const name = uniqueDatabaseName('cli-migrations');
  const url = databaseUrl(name);
  const cli = async (...args: string[]) => {
    const lines: string[] = [];
    const code = await runCli(args, (line) => lines.push(line), { DATABASE_URL: url });
    return { code, lines };
  };
  const tables = async () => {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
      return rows.map((row) => row.table_name as string);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    const admin = new Client({ connectionString: databaseUrl('postgres') });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
    await admin.end();
  });
  afterAll(() => dropDatabase(name));

  it('applies no migration for read-only commands: they fail on an empty database and leave it empty', async () => {
    await expect(cli('verify-chain')).rejects.toThrow(/relation "events" does not exist/);
    await expect(cli('ip-history', '10.0.0.1')).rejects.toThrow(/does not exist/);
    await expect(cli('replay', '--verify')).rejects.toThrow(/does not exist/);
    expect(await tables()).toEqual([]);
  });

  it('migrate applies every migration once, after which the read-only commands work', async () => {
    const first = await cli('migrate');
    expect(first.code).toBe(0);
    expect(first.lines.at(-1)).toMatch(/^applied: 001_event_store\.sql, /);
    expect(await tables()).toEqual(expect.arrayContaining(['events', 'schema_migrations']));
    expect(await cli('migrate')).toEqual({ code: 0, lines: ['nothing to apply'] });
    expect(await cli('verify-chain')).toEqual({ code: 0, lines: ['the audit chain is intact: 0 links over 0 events'] });
  });
});
