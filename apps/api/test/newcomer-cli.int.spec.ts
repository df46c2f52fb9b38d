import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../../test/support/free-port';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

const ROOT = join(__dirname, '../../..');

/**
 * The CLI as a newcomer meets it on a REST-only install (no watcher, nothing parked, a fresh
 * address): each answer says what it found, even when that is nothing, with an exit code that
 * means something (EXIT_CODES). The built CLI (dist/cli.js) as a process.
 */
describe("the CLI's answers on a REST-only install", () => {
  let db: TestDatabase;
  beforeAll(async () => (db = await createTestDatabase('newcomer_cli')));
  afterAll(() => db.drop());

  const cli = (args: string[], databaseUrl = db.url) => {
    const run = spawnSync(process.execPath, [join(ROOT, 'dist/cli.js'), ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, IPAM_LOG_FORMAT: 'json' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: run.status, out: run.stdout.split('\n').filter(Boolean), err: run.stderr.split('\n').filter(Boolean) };
  };

  it('ip-history of an address nothing ever held says so, exit 0', () => {
    expect(cli(['ip-history', '10.4.0.17'])).toEqual({
      code: 0,
      out: ['10.4.0.17 has no history: no allocation, release or reservation of it was ever recorded'],
      err: [],
    });
  });

  it('check with no pod sync says the Kubernetes consumer has never synced, and exits 3 (not 1: nothing was found)', () => {
    expect(cli(['check'])).toEqual({
      code: 3,
      out: [
        'default: no pod sync yet: the Kubernetes consumer has never synced the pods of cluster default ' +
          '(REST only, NATS_URL unset; or its watcher has not run), so no allocation was compared with a pod',
        'default: no problem, compared with no pod sync',
      ],
      err: [],
    });
  });

  it('unpark with nothing parked says nothing is parked, exit 0', () => {
    expect(cli(['unpark', 'node/worker-1'])).toEqual({
      code: 0,
      out: ['nothing is parked: no message to apply again (ipledger parked lists them)'],
      err: [],
    });
    expect(cli(['unpark', '--all']).code).toBe(0);
  });

  it('an unreachable DATABASE_URL: one line naming host:port and what to check, not the password; exit 5', async () => {
    const down = await freePort();
    const { code, out, err } = cli(['check'], `postgres://bob:s3cret@127.0.0.1:${down}/ipledger`);
    expect(code).toBe(5);
    expect(out).toEqual([]);
    expect(err).toHaveLength(1);
    expect(JSON.parse(err[0])).toMatchObject({
      level: 'error',
      context: 'cli',
      command: 'check',
      message:
        `cannot connect to PostgreSQL at 127.0.0.1:${down}, database ipledger, user bob (DATABASE_URL): ` +
        'connection refused (nothing listens there); check DATABASE_URL and that PostgreSQL runs there',
    });
    expect(err[0]).not.toContain('s3cret');
  });
});
