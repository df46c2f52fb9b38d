import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../../../test/support/api-process';
import { freePort } from '../../../test/support/free-port';
import { newcomerEnv, processesNaming, startNewcomerApi, type NewcomerApi } from '../../../test/support/newcomer-api';

const ROOT = join(__dirname, '../../..');

/**
 * `npm start` with nothing configured, as a newcomer runs it (the built API, no DATABASE_URL, no
 * NATS_URL): an embedded PostgreSQL under IPAM_DATA_DIR that keeps its data across restarts,
 * stops with the API, and survives a kill -9 of the API.
 */
describe('the API without DATABASE_URL: embedded PostgreSQL', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'ipledger-embedded-'));
  chmodSync(dataDir, 0o755); // run as root, the server runs as `postgres`
  let pgPort: number;
  let port: number;
  let api: NewcomerApi | undefined;
  let lines: string[];

  /** the environment of a newcomer's shell, but for the ports and the data directory */
  const env = () => newcomerEnv({ PORT: String(port), IPAM_DATA_DIR: dataDir, IPAM_EMBEDDED_POSTGRES_PORT: String(pgPort) });

  async function start(): Promise<string> {
    api = await startNewcomerApi(ROOT, env());
    lines = api.lines;
    expect(api.ready).toMatchObject({ status: 'ready', checks: { database: 'ok' } });
    return api.base;
  }

  const signal = (name: NodeJS.Signals) => api!.signal(name);

  beforeAll(async () => {
    pgPort = await freePort();
    port = await freePort();
  });
  afterAll(async () => {
    await api?.signal('SIGTERM');
    for (const pid of processesNaming(dataDir)) process.kill(pid, 'SIGINT');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves REST with only the database, says where the data is, and keeps pools and allocations across a restart', async () => {
    let base = await start();
    expect(lines.join('\n')).toContain(`using the embedded PostgreSQL on 127.0.0.1:${pgPort}, data in ${dataDir}`);
    expect(lines.join('\n')).toContain('(set DATABASE_URL');
    expect((await call(base, 'POST', '/v1/pools', { name: 'p', cidr: '10.9.0.0/29' })).status).toBe(201);
    const allocated = await call(base, 'POST', '/v1/allocations', { handle: 'h1', node: 'n', namespace: 'ns', pod: 'a' });
    expect(allocated.status).toBe(201);
    // a server of its own has no standby: reported, but no warning for a try on one machine
    expect((await call(base, 'GET', '/readyz?verbose')).body.checks.replication).toMatchObject({ status: 'failed', standbys: 0 });

    await signal('SIGINT');
    expect(processesNaming(dataDir)).toEqual([]);
    expect(lines.join('\n')).not.toContain('synchronous standby');

    base = await start();
    expect((await call(base, 'GET', '/v1/allocations/h1')).body).toEqual(allocated.body);
    expect((await call(base, 'GET', '/v1/pools/p')).body).toMatchObject({ allocated: '1' });
    await signal('SIGTERM');
    expect(processesNaming(dataDir)).toEqual([]);
  });

  it('recovers after a kill -9 left its PostgreSQL running without it', async () => {
    await start();
    await signal('SIGKILL');
    expect(processesNaming(dataDir).length).toBeGreaterThan(0); // the orphaned server

    const base = await start();
    expect(lines.join('\n')).toMatch(/stopping the PostgreSQL server \(pid \d+\) left running by an earlier run/);
    expect((await call(base, 'GET', '/v1/allocations/h1')).status).toBe(200);
    await signal('SIGINT');
    expect(processesNaming(dataDir)).toEqual([]);
  });

  it('lets the CLI share the server while the API runs, and leaves it running', async () => {
    const base = await start();
    const history = spawnSync(process.execPath, [join(ROOT, 'dist/cli.js'), 'ip-history', '10.9.0.1'], {
      cwd: ROOT,
      env: env(),
      encoding: 'utf8',
    });
    expect(history.status).toBe(0);
    expect(history.stdout).toMatch(/\tIpAllocated\tp\th1\tns\/a\tn\t/);
    expect((await call(base, 'GET', '/v1/allocations/h1')).status).toBe(200);
    await signal('SIGINT');
    expect(processesNaming(dataDir)).toEqual([]);
  });
});
