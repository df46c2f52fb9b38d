import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMigrations } from '@ipledger/event-store';
import { call, startApiProcess, type ApiProcess } from '../support/api-process';
import { databaseUrl, dropDatabase, MIGRATIONS_DIR, uniqueDatabaseName } from '../support/test-database';
import { PREVIOUS_RELEASE } from './baseline';

const ROOT = join(__dirname, '../..');
const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();

/** The previous release's commit: IPAM_PREVIOUS_RELEASE (any git ref) when set, else the one baseline.ts names. */
function previousRelease(): string {
  const ref = process.env.IPAM_PREVIOUS_RELEASE || PREVIOUS_RELEASE.commit;
  try {
    return git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`);
  } catch {
    throw new Error(`the previous release ${ref} is not in this clone's history: fetch it (a shallow clone has none)`);
  }
}

/**
 * A rolling update runs the previous release's replicas on the schema this release migrated
 * (docs/kubernetes.md, "Upgrades"). So, as in a cluster: start the previous release's API from its
 * own sources (git archive) on its own schema, migrate the database under it with this tree's
 * migrations (the Job), and drive every kind of write and read through it. A migration that breaks
 * that SQL (a column renamed or made NOT NULL...) fails here with the old code's 500s. (A previous
 * release *started* on the newer schema is a rollback, which it refuses: newer-schema.int.spec.ts.)
 */
describe('the previous release on this release schema', () => {
  const name = uniqueDatabaseName('previous-release');
  const url = databaseUrl(name);
  const ref = previousRelease();
  const tree = mkdtempSync(join(tmpdir(), 'ipledger-previous-'));
  let api: ApiProcess;

  beforeAll(async () => {
    execFileSync('sh', ['-c', `git archive ${ref} | tar -x -C ${tree}`], { cwd: ROOT });
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
    // the replicas run before the upgrade, ready on their own schema; then the Job migrates
    await runMigrations(url, join(tree, 'migrations'));
    api = await startApiProcess(url, { from: 'source', root: tree });
    await runMigrations(url, MIGRATIONS_DIR);
  }, 120_000);

  afterAll(async () => {
    await api?.stop();
    await dropDatabase(name);
    rmSync(tree, { recursive: true, force: true });
  });

  it(`serves writes and reads as it did (previous release ${ref.slice(0, 12)})`, async () => {
    const steps: Array<[string, string, unknown?]> = [
      ['POST', '/v1/pools', { name: 'old', cidr: '10.77.0.0/24', labels: { zone: 'a' }, reserved: ['10.77.0.250-10.77.0.255'] }],
      ['PATCH', '/v1/pools/old', { disabled: false }],
      ['PUT', '/v1/nodes/worker-1', { labels: { zone: 'a' } }],
      ['POST', '/v1/allocations', { handle: 'h1', node: 'worker-1', namespace: 'default', pod: 'web-0', podUid: 'u1', pools: ['old'] }],
      ['POST', '/v1/allocations', { handle: 'h2', node: 'worker-1', namespace: 'default', pod: 'web-1', ip: '10.77.0.9' }],
      ['GET', '/v1/allocations/h1'],
      ['GET', '/v1/allocations?pool=old'],
      ['PUT', '/v1/statefulsets/default/db', { replicas: 3, pool: 'old' }],
      ['POST', '/v1/allocations', { handle: 'h3', node: 'worker-1', namespace: 'default', pod: 'db-1' }],
      ['GET', '/v1/statefulsets/default/db'],
      ['GET', '/v1/pools/old'],
      ['GET', '/v1/pools?labelSelector=zone%3Da'],
      ['GET', '/v1/nodes/worker-1/pools'],
      ['GET', '/v1/events?limit=100'],
      ['GET', '/v1/ips/10.77.0.9/history'],
      ['GET', '/v1/pools/old/history'],
      ['DELETE', '/v1/allocations/h1'],
      ['DELETE', '/v1/allocations/h2'],
      ['DELETE', '/v1/statefulsets/default/db'],
      ['DELETE', '/v1/nodes/worker-1'],
      ['DELETE', '/v1/pools/old'],
    ];
    const failed: string[] = [];
    for (const [method, path, body] of steps) {
      const res = await call(api.base, method, path, body);
      if (res.status < 200 || res.status >= 300) failed.push(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    }
    expect(failed).toEqual([]);
    expect((await call(api.base, 'GET', '/readyz')).status).toBe(200);
  });
});
