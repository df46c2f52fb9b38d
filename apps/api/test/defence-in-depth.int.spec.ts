import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually } from '../../../test/support/eventually';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/**
 * A statement that waits (here: on a lock the test holds) stands for one that runs long: the
 * API's statement_timeout, its request timeout and a client that goes away must each end it.
 */
describe('defence in depth: statement_timeout, request timeout, cancel on disconnect', () => {
  const apis: TestApi[] = [];
  afterAll(() => Promise.all(apis.map((api) => api.close())));

  async function start(env: NodeJS.ProcessEnv): Promise<TestApi> {
    const api = await startTestApi('depth', { env });
    apis.push(api);
    await api.http().post('/v1/pools').send({ name: 'p', cidr: '10.1.0.0/24' }).expect(201);
    return api;
  }

  /** Runs `body` while an ACCESS EXCLUSIVE lock on pools is held: every read of pools waits meanwhile. */
  async function whilePoolsLocked(api: TestApi, body: () => Promise<void>): Promise<void> {
    const locker = await api.db.pool.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE pools IN ACCESS EXCLUSIVE MODE');
    try {
      await body();
    } finally {
      await locker.query('ROLLBACK');
      locker.release();
    }
  }

  /** Backends of the API's database waiting on a lock (the test's own locker holds, it does not wait). */
  async function waiting(api: TestApi): Promise<number> {
    const { rows } = await api.db.pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    return rows[0].n;
  }

  /** Polls until this many of the API's backends wait on a lock, and returns the last count seen. */
  const waitingBecomes = (api: TestApi, n: number) =>
    eventually(
      () => waiting(api),
      (count) => count === n,
    );

  it('answers 503 UNAVAILABLE when a statement runs past IPAM_STATEMENT_TIMEOUT_MS, and recovers', async () => {
    const api = await start({ IPAM_STATEMENT_TIMEOUT_MS: '300', IPAM_REQUEST_TIMEOUT_MS: '0' });
    await whilePoolsLocked(api, async () => {
      const res = await api.http().get('/v1/pools');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ statusCode: 503, code: 'UNAVAILABLE' });
      expect(await waiting(api)).toBe(0);
    });
    await api.http().get('/v1/pools').expect(200);
    const before = await api.eventCount();
    await whilePoolsLocked(api, async () => {
      const write = await api.http().post('/v1/pools').send({ name: 'q', cidr: '10.2.0.0/24' });
      expect(write.body.code).toBe('UNAVAILABLE');
    });
    expect(await api.eventCount()).toBe(before);
  });

  it('answers 503 UNAVAILABLE past IPAM_REQUEST_TIMEOUT_MS and cancels the query it was waiting for', async () => {
    const api = await start({ IPAM_STATEMENT_TIMEOUT_MS: '0', IPAM_REQUEST_TIMEOUT_MS: '300' });
    await whilePoolsLocked(api, async () => {
      const res = await api.http().get('/v1/pools/p');
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('UNAVAILABLE');
      expect(res.body.message).toMatch(/did not finish within 300 ms/);
      // the query that waited is cancelled, though the lock is still held
      expect(await waitingBecomes(api, 0)).toBe(0);
    });
    await api.http().get('/v1/pools/p').expect(200);
  });

  it('cancels the query of a request whose client went away', async () => {
    const api = await start({ IPAM_STATEMENT_TIMEOUT_MS: '0', IPAM_REQUEST_TIMEOUT_MS: '0' });
    await whilePoolsLocked(api, async () => {
      const { port } = api.app.getHttpServer().address() as AddressInfo;
      const req = http.get({ host: '127.0.0.1', port, path: '/v1/pools?limit=5' });
      req.on('error', () => undefined);
      expect(await waitingBecomes(api, 1)).toBe(1);
      req.destroy();
      expect(await waitingBecomes(api, 0)).toBe(0);
    });
    await api.http().get('/v1/pools').expect(200);
  });
});
