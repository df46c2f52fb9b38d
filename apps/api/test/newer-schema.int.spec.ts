import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { call, runApiUntilExit, startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

const ROOT = join(__dirname, '../../..');
/** a migration this release does not have, as a newer release's Job records it */
const NEWER = '999_from_a_newer_release.sql';
const REFUSAL = `the database schema is newer than this release: ${NEWER} was applied by a newer release, and migrations only go forward; run that release or a newer one, or restore the database from a backup taken before the upgrade`;

/** The JSON log lines whose message is `message` (one line each, no stack). */
const linesSaying = (lines: string[], message: string) =>
  lines.flatMap((line) => {
    try {
      const parsed = JSON.parse(line) as { msg?: string; message?: string; stack?: string };
      return (parsed.msg ?? parsed.message) === message ? [parsed] : [];
    } catch {
      return [];
    }
  });

/**
 * Migrations only go forward: an API started on a schema that a newer release migrated (a
 * rollback of the code) refuses it with one line naming the migration and what to do. A replica
 * that was ready before the newer release migrated stays ready (the rolling update's window).
 */
describe('the API on a schema a newer release migrated', () => {
  let db: TestDatabase;
  let running: ApiProcess | undefined;
  let notReady: ApiProcess | undefined;

  beforeAll(async () => {
    db = await createTestDatabase('newer_schema');
    running = await startApiProcess(db.url, { from: 'dist' });
    // the newer release's Job migrates under the running replica
    await db.pool.query('INSERT INTO schema_migrations (name) VALUES ($1)', [NEWER]);
  });

  afterAll(async () => {
    await running?.stop();
    await notReady?.stop();
    await db?.drop();
  });

  it('a replica already running stays ready and serves (a rolling update to the newer release)', async () => {
    expect(await call(running!.base, 'GET', '/readyz')).toMatchObject({ status: 200 });
    expect((await call(running!.base, 'POST', '/v1/pools', { name: 'p', cidr: '10.91.0.0/24' })).status).toBe(201);
  });

  it('started with IPAM_MIGRATE=on (the default), it exits 1 with one line naming the migration, migrating nothing', async () => {
    const { code, lines } = await runApiUntilExit(db.url, { from: 'dist' });
    expect(code).toBe(1);
    const said = linesSaying(lines, REFUSAL);
    expect(said).toHaveLength(1);
    expect(said[0].stack).toBeUndefined();
    expect(lines.some((line) => /listening on|successfully started/i.test(line))).toBe(false);
    const { rows } = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM schema_migrations WHERE name = $1', [NEWER]);
    expect(rows[0].n).toBe('1');
  });

  it('started with IPAM_MIGRATE=off (Kubernetes), it stays up but never ready, saying why at start and in /readyz', async () => {
    notReady = await startApiProcess(db.url, { from: 'dist', env: { IPAM_MIGRATE: 'off' }, until: '/healthz' });
    const ready = await call(notReady.base, 'GET', '/readyz');
    expect(ready).toMatchObject({ status: 503, body: { code: 'UNAVAILABLE', message: expect.stringContaining(REFUSAL) } });
    const verbose = await call(notReady.base, 'GET', '/readyz?verbose');
    expect(verbose.body.checks.schema).toMatchObject({ status: 'failed', message: REFUSAL, unknown: [NEWER] });
    expect(linesSaying(notReady.lines, `not ready: ${REFUSAL}`)).toHaveLength(1);
  });

  it('`ipledger migrate` of the older release (its Job in a rollback) fails with the same line', () => {
    const cli = spawnSync(process.execPath, [join(ROOT, 'dist/cli.js'), 'migrate'], {
      env: { ...process.env, IPAM_MIGRATIONS_DATABASE_URL: db.url, IPAM_LOG_FORMAT: 'json' },
      encoding: 'utf8',
    });
    expect(cli.status).not.toBe(0);
    expect(cli.stdout).not.toContain('nothing to apply');
    expect(linesSaying(cli.stderr.split('\n'), REFUSAL)).toHaveLength(1);
  });
});
