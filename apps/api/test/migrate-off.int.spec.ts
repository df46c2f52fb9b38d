import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { migrationFiles, runMigrations } from '@ipledger/event-store';
import { runCli } from '../src/cli';
import { call, startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { databaseUrl, dropDatabase, MIGRATIONS_DIR, uniqueDatabaseName } from '../../../test/support/test-database';
import { eventually } from '../../../test/support/eventually';

/**
 * Kubernetes' way (deploy/): a Job migrates as the schema owner, the API pods run as the service
 * role with IPAM_MIGRATE=off. The API never migrates then, and is not ready while the schema is
 * behind its release; once `ipledger migrate` has run it is, without a restart.
 */
describe('IPAM_MIGRATE=off: the API as ipledger_service, a schema one migration behind', () => {
  const name = uniqueDatabaseName('migrate-off');
  const ownerUrl = databaseUrl(name);
  const role = `ipledger_t_mo_${randomBytes(4).toString('hex')}`;
  const olderRelease = mkdtempSync(join(tmpdir(), 'migrations-'));
  let latest: string;
  let api: ApiProcess;

  const applied = async () => {
    const client = new Client({ connectionString: ownerUrl });
    await client.connect();
    try {
      return (await client.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).rows.map((r) => r.name);
    } finally {
      await client.end();
    }
  };

  beforeAll(async () => {
    // the previous release: every migration but the newest
    const files = await migrationFiles(MIGRATIONS_DIR);
    latest = files.at(-1)!;
    for (const file of files.slice(0, -1)) cpSync(join(MIGRATIONS_DIR, file), join(olderRelease, file));
    await runMigrations(ownerUrl, olderRelease);
    const password = randomBytes(12).toString('hex');
    const owner = new Client({ connectionString: ownerUrl });
    await owner.connect();
    await owner.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}' IN ROLE ipledger_service`);
    await owner.end();
    const serviceUrl = new URL(ownerUrl);
    serviceUrl.username = role;
    serviceUrl.password = password;
    api = await startApiProcess(serviceUrl.toString(), { from: 'dist', env: { IPAM_MIGRATE: 'off' }, until: '/healthz' });
  });

  afterAll(async () => {
    await api?.stop();
    await dropDatabase(name);
    const admin = new Client({ connectionString: databaseUrl('postgres') });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
    rmSync(olderRelease, { recursive: true, force: true });
  });

  it('applies nothing at start and answers /readyz 503 naming the migration that is missing', async () => {
    expect(await applied()).not.toContain(latest);
    const ready = await call(api.base, 'GET', '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringContaining(`${latest} not applied`) });
    const verbose = await call(api.base, 'GET', '/readyz?verbose');
    expect(verbose.status).toBe(503);
    expect(verbose.body).toMatchObject({
      status: 'not ready',
      checks: { database: { status: 'ok', required: true }, schema: { status: 'failed', required: true, pending: [latest] } },
    });
    expect(await applied()).not.toContain(latest);
  });

  it('is ready once `ipledger migrate` has run as the owner from IPAM_MIGRATIONS_DATABASE_URL alone, without a restart', async () => {
    const lines: string[] = [];
    expect(await runCli(['migrate'], (line) => lines.push(line), { IPAM_MIGRATIONS_DATABASE_URL: ownerUrl })).toBe(0);
    expect(lines.at(-1)).toBe(`applied: ${latest}`);
    const ready = await eventually(
      () => call(api.base, 'GET', '/readyz'),
      (res) => res.status === 200,
    );
    expect(ready).toEqual({ status: 200, body: { status: 'ready', checks: { database: 'ok', schema: 'ok' } } });
    expect(api.alive()).toBe(true);
  });
});
