import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { runCli } from '../../apps/api/src/cli';
import { call, startApiProcess, type ApiProcess } from '../support/api-process';
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-postgres';
import { createTestBus, type TestBus } from '../support/test-bus';
import { report, seconds, waitFor } from './chaos-report';

/**
 * R3: PostgreSQL (a private cluster of this test's own) stopped with `pg_ctl stop -m fast` for
 * five seconds under load, then started again, while the watcher's messages keep coming. The API
 * process is never restarted.
 */
describe('chaos: PostgreSQL restart', () => {
  let pg: PrivatePostgres;
  let bus: TestBus;
  let api: ApiProcess;
  beforeAll(async () => {
    pg = await startPrivatePostgres();
    bus = await createTestBus('chaos_pg');
    api = await startApiProcess(pg.url('ipledger'), { from: 'dist', env: bus.env });
  }, 120_000);
  afterAll(async () => {
    await api?.stop();
    await bus?.close();
    await pg?.close();
  });

  it('R3: waits the outage out or answers 503 UNAVAILABLE, never 500, recovers without a restart, loses nothing acknowledged', async () => {
    expect((await call(api.base, 'POST', '/v1/pools', { name: 'r3', cidr: '10.102.0.0/16' })).status).toBe(201);
    let phase: 'before' | 'outage' | 'after' = 'before';
    const statuses: Record<string, Record<string, number>> = { before: {}, outage: {}, after: {} };
    const acknowledged = new Map<string, string>();
    let unanswered = 0;
    let stop = false;
    const count = (status: string) => (statuses[phase][status] = (statuses[phase][status] ?? 0) + 1);
    const client = async (c: number) => {
      for (let n = 0; !stop; n++) {
        const handle = `r3-${c}-${n}`;
        while (!stop) {
          const res = await call(api.base, 'POST', '/v1/allocations', {
            handle,
            node: 'n',
            namespace: 'chaos',
            pod: `r3-${c}-${n}`,
            pools: ['r3'],
          }).catch(() => null);
          if (!res) {
            unanswered++;
            await new Promise((resolve) => setTimeout(resolve, 50));
            continue;
          }
          count(res.status === 503 ? `503 ${res.body.code}` : String(res.status));
          if (res.status === 201 || res.status === 200) {
            acknowledged.set(handle, res.body.items[0].ip);
            break;
          }
          // 503: the same handle again once the database is back (it takes one address, however often asked)
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };
    const clients = Array.from({ length: 16 }, (_, c) => client(c));
    await new Promise((resolve) => setTimeout(resolve, 2000));

    phase = 'outage';
    await pg.stop();
    const readyzDuringOutage = await waitFor(
      'readyz 503',
      async () => (await call(api.base, 'GET', '/readyz')).status === 503,
      10_000,
    ).then(() => 503);
    // the watcher's changes keep coming while the database is away
    const changes = Array.from({ length: 20 }, (_, i) => ({
      metadata: { name: `node-${i}`, uid: randomUUID(), resourceVersion: String(100 + i), labels: { rack: `r${i}` } },
    }));
    for (const object of changes) await bus.publisher.change({ kind: 'node', type: 'ADDED', object });
    await bus.publisher.flush();
    await new Promise((resolve) => setTimeout(resolve, 5000));
    await pg.start();
    const restarted = Date.now();
    phase = 'after';
    const ready = await waitFor('readyz 200', async () => (await call(api.base, 'GET', '/readyz')).status === 200, 60_000);
    const allocating = await waitFor('a 201 after the restart', () => (statuses.after['201'] ?? 0) > 0, 60_000).then(
      () => Date.now() - restarted,
    );
    const missingChanges = async () => {
      const nodes = await Promise.all(changes.map((object) => call(api.base, 'GET', `/v1/nodes/${object.metadata.name}`)));
      return nodes.filter((node, i) => node.status !== 200 || node.body.labels.rack !== changes[i].metadata.labels.rack).length;
    };
    const changesApplied = await waitFor(
      'the changes published during the outage applied',
      async () => (await missingChanges()) === 0,
      120_000,
    ).then(() => Date.now() - restarted);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    stop = true;
    await Promise.all(clients);

    let lost = 0;
    for (const [handle, ip] of acknowledged) {
      const held = await call(api.base, 'GET', `/v1/allocations/${handle}`);
      if (held.status !== 200 || held.body.items[0].ip !== ip) lost++;
    }
    const db = new Pool({ connectionString: pg.url('ipledger'), max: 1 });
    const { rows } = await db.query('SELECT count(*) - count(DISTINCT ip) AS duplicates FROM allocations');
    await db.end();
    const lines: string[] = [];
    const verify = await runCli(['replay', '--verify'], (line) => lines.push(line), { DATABASE_URL: pg.url('ipledger') });
    const outage500s = statuses.outage['500'] ?? 0;
    report('R3 PostgreSQL stopped 5 s under load (16 clients)', {
      acknowledged: acknowledged.size,
      lostAcknowledged: lost,
      duplicates: Number(rows[0].duplicates),
      '500sDuringOutage': outage500s,
      '500sOverall': Object.values(statuses).reduce((sum, s) => sum + (s['500'] ?? 0), 0),
      '503sDuringOutage': statuses.outage['503 UNAVAILABLE'] ?? 0,
      unansweredRequests: unanswered,
      readyzDuringOutage,
      readyAfterRestartSeconds: seconds(ready),
      firstAllocationAfterRestartSeconds: seconds(allocating),
      lostChanges: await missingChanges(),
      outageChangesAppliedAfterSeconds: seconds(changesApplied),
      replayVerifyExit: verify,
    });
    // a request waits a lost database out within its deadline (FAILOVER_WAIT_MS, 10 s), so a 5 s outage
    // may end with no 503 at all: what must hold is that nothing else is answered and nothing is lost
    expect(Object.keys(statuses.outage).filter((s) => !['201', '200', '503 UNAVAILABLE'].includes(s))).toEqual([]);
    expect(Object.values(statuses).every((s) => !s['500'])).toBe(true);
    expect(unanswered).toBe(0);
    expect(api.alive()).toBe(true);
    expect(lost).toBe(0);
    expect(Number(rows[0].duplicates)).toBe(0);
    expect(verify).toBe(0);
  });
});
