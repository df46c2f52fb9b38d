import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { call } from '../../../test/support/api-process';
import { freePort } from '../../../test/support/free-port';
import { newcomerEnv, processesNaming, startNewcomerApi, type NewcomerApi } from '../../../test/support/newcomer-api';

const ROOT = join(__dirname, '../../..');
const asRoot = userInfo().uid === 0;

/**
 * A newcomer's first steps, as root in a folder only root may enter (`mktemp -d` is 0700, as is
 * /root): a fresh clone of HEAD, `npm start` with nothing configured, and the test suite's global
 * setup. The PostgreSQL server runs as `postgres`, which cannot enter the clone: neither the
 * binaries npm installed in it nor `.ipledger/` in it are within its reach.
 *
 * node_modules and dist/ are hard-linked from this checkout instead of `npm ci` (two minutes):
 * hard links are files of the clone's own, at the clone's paths, so the server's binaries lie in
 * the closed folder exactly as after `npm ci`. What this does not prove is that `npm ci` itself
 * succeeds there (CI runs it, as root, in its checkout).
 */
describe('a fresh clone in a folder only its owner may enter', () => {
  const folder = mkdtempSync(join(tmpdir(), 'ipledger-private-'));
  const clone = join(folder, 'ipledger');
  let api: NewcomerApi | undefined;
  let dataDir: string | undefined;

  beforeAll(() => {
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    execFileSync('git', ['clone', '--quiet', ROOT, clone]);
    // cp -al: a tree of hard links (same file system as the checkout), made in seconds
    for (const tree of ['node_modules', 'dist']) execFileSync('cp', ['-al', join(ROOT, tree), join(clone, tree)]);
  }, 120_000);

  afterAll(async () => {
    await api?.signal('SIGTERM');
    rmSync(folder, { recursive: true, force: true });
    rmSync(`${folder}-moved`, { recursive: true, force: true });
    if (dataDir?.startsWith('/var/lib/ipledger/')) rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves: npm start keeps its data where postgres can reach it, and says where', async () => {
    api = await startNewcomerApi(
      clone,
      newcomerEnv({ PORT: String(await freePort()), IPAM_EMBEDDED_POSTGRES_PORT: String(await freePort()) }),
    );
    const { base, lines } = api;
    expect((await call(base, 'POST', '/v1/pools', { name: 'p', cidr: '10.9.0.0/29' })).status).toBe(201);

    const log = lines.join('\n');
    dataDir = /data in (\S+) /.exec(log)?.[1];
    if (asRoot) {
      expect(log).toContain(`the postgres user cannot enter ${folder}, so the embedded PostgreSQL keeps the data of ${clone}/.ipledger in`);
      expect(dataDir).toMatch(/^\/var\/lib\/ipledger\/[0-9a-f]{12}$/);
      expect(log).toMatch(/copying the PostgreSQL binaries to \/var\/lib\/ipledger\/[0-9a-f]{12}\/postgres-[0-9a-f]{16}/);
    } else {
      expect(dataDir).toBe(join(clone, '.ipledger'));
    }
    expect(existsSync(join(dataDir!, 'postgres', 'PG_VERSION'))).toBe(true);

    await api.signal('SIGTERM');
    expect(processesNaming(dataDir!)).toEqual([]);
  });

  it("starts the test suite's own PostgreSQL and NATS (jest's global setup) from there", () => {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['TEST_DATABASE_URL', 'TEST_NATS_URL', 'JEST_WORKER_ID']) delete env[name];
    // the spec that writes to the global setup's database and reads its NATS
    const run = spawnSync(process.execPath, ['node_modules/.bin/jest', '--ci', 'test/support/global-setup.int.spec.ts'], {
      cwd: clone,
      env,
      encoding: 'utf8',
      timeout: 180_000,
    });
    // the summary first: on a failure its message shows jest's output
    expect(run.stderr).toMatch(/Tests:\s+1 passed, 1 total/);
    expect(run.status).toBe(0);
  }, 200_000);

  // what each such clone leaves in /var/lib/ipledger (some 100 MB) once it is gone: listed, and pruned unless in use
  (asRoot ? it : it.skip)(
    'ipledger data lists the folder for its clone; data prune removes it once the clone is gone, never while in use',
    async () => {
      const data = (...args: string[]) => {
        const run = spawnSync(process.execPath, [join(ROOT, 'dist/cli.js'), 'data', ...args], { cwd: ROOT, encoding: 'utf8' });
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0);
        return run.stdout.split('\n').filter(Boolean);
      };
      const row = (lines: string[]) => lines.find((line) => line.startsWith(`${dataDir}\t`));
      api = await startNewcomerApi(
        clone,
        newcomerEnv({ PORT: String(await freePort()), IPAM_EMBEDDED_POSTGRES_PORT: String(await freePort()) }),
      );
      expect(row(data())).toMatch(
        new RegExp(
          `^${dataDir}\\t\\d+\\.\\d MiB\\tfor ${clone}/\\.ipledger\\tcheckout present\\tserver running \\(pid \\d+, port \\d+\\)$`,
        ),
      );
      expect(data('prune').join('\n')).not.toContain(dataDir!);

      // the clone gone (moved away: the running API keeps its files) while its server runs: kept
      renameSync(folder, `${folder}-moved`);
      expect(row(data())).toMatch(/\tcheckout gone\tserver running /);
      expect(data('prune')).toContainEqual(
        expect.stringMatching(new RegExp(`^kept ${dataDir}: its checkout is gone, but a server runs on it`)),
      );
      expect(existsSync(join(dataDir!, 'postgres', 'PG_VERSION'))).toBe(true);

      await api.signal('SIGTERM');
      expect(row(data())).toMatch(/\tcheckout gone\tno server$/);
      expect(data('prune')).toContainEqual(
        expect.stringMatching(new RegExp(`^removed ${dataDir} \\(\\d+\\.\\d MiB, ${clone}/\\.ipledger\\)$`)),
      );
      expect(existsSync(dataDir!)).toBe(false);
      expect(row(data())).toBeUndefined();
    },
    200_000,
  );
});
