import { Pool } from 'pg';
import { call, startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

/**
 * Postgres drops the API's connections under load, as a restart or failover does (here by
 * terminating this database's backends, so the shared server stays up). Before every pg client had
 * an error listener, a client checked out at that instant crashed the process.
 */
describe('the API when Postgres drops its connections', () => {
  let db: TestDatabase;
  let api: ApiProcess;
  beforeAll(async () => {
    db = await createTestDatabase('connection-loss');
    api = await startApiProcess(db.url, { from: 'source' });
    expect((await call(api.base, 'POST', '/v1/pools', { name: 'p', cidr: '10.60.0.0/20' })).status).toBe(201);
  }, 90_000);
  afterAll(async () => {
    await api.stop();
    await db.drop();
  });

  it('answers 503 UNAVAILABLE for the requests in flight, never 500, never dies, and loses nothing acknowledged', async () => {
    const admin = new Pool({ connectionString: db.url, max: 1 });
    admin.on('error', () => undefined);
    const statuses = new Map<number, number>();
    const bodies503: string[] = [];
    const acknowledged = new Map<string, string>();
    let unanswered = 0;
    let stop = false;
    let n = 0;
    const client = async () => {
      while (!stop) {
        const handle = `h-${n++}`;
        const res = await call(api.base, 'POST', '/v1/allocations', { handle, node: 'n', namespace: 'ns', pod: handle }).catch(() => null);
        if (!res) {
          unanswered++;
          continue;
        }
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 503) bodies503.push(res.body.code);
        if (res.status === 201) acknowledged.set(handle, res.body.items[0].ip);
      }
    };
    const clients = Array.from({ length: 16 }, client);
    let terminated = 0;
    for (let round = 0; round < 15; round++) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      const { rows } = await admin.query(
        'SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
      );
      terminated += Number(rows[0].n);
    }
    stop = true;
    await Promise.all(clients);
    await admin.end();

    expect(terminated).toBeGreaterThan(0);
    expect(unanswered).toBe(0);
    expect(statuses.get(500) ?? 0).toBe(0);
    expect([...statuses.keys()].every((s) => [201, 503].includes(s))).toBe(true);
    expect(bodies503.every((code) => code === 'UNAVAILABLE')).toBe(true);
    expect((await call(api.base, 'GET', '/healthz')).status).toBe(200);
    expect((await call(api.base, 'GET', '/readyz')).status).toBe(200);
    for (const [handle, ip] of acknowledged) {
      const held = await call(api.base, 'GET', `/v1/allocations/${handle}`);
      expect([held.status, held.body.items?.[0]?.ip]).toEqual([200, ip]);
    }
  });
});
