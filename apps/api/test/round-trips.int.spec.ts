import type { Pool, PoolClient } from 'pg';
import { DEFAULT_CLUSTER, StatefulSetAggregate, statefulSetId } from '@ipledger/domain';
import { EventWriter } from '../src/infrastructure/event-writer';
import { PG_POOL } from '../src/infrastructure/tokens';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/**
 * The hot path's round-trip budget: statements an allocation and a release send to PostgreSQL,
 * counted on the API's own connection pool. Budgets, not timings: a change that adds a round trip
 * to the hot path fails here, whatever the machine.
 */
describe('round trips of the hot path', () => {
  let api: TestApi;
  let statements = 0;
  beforeAll(async () => {
    // the audit sealer shares the pool: at its default second it sealed during a slow burst and was counted
    api = await startTestApi('round_trips', { env: { IPAM_AUDIT_SEAL_INTERVAL_MS: '60000' } });
    const pool = api.app.get<Pool>(PG_POOL);
    const counted = new WeakSet<PoolClient>();
    pool.on('acquire', (client) => {
      if (counted.has(client)) return;
      counted.add(client);
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        statements++;
        return query(...args);
      };
    });
    await api.http().post('/v1/pools').send({ name: 'p', cidr: '10.30.0.0/16' }).expect(201);
    await api.http().post('/v1/pools').send({ name: 'q', cidr: '10.31.0.0/16' }).expect(201);
    // the pool's aggregate is cached and its statements prepared: what the hot path meets
    await api.http().post('/v1/allocations').send(body('warm-0')).expect(201);
  });
  afterAll(() => api.close());

  const body = (handle: string) => ({ handle, node: 'n', namespace: 'ns', pod: handle, pools: ['p'] });
  async function count(work: () => Promise<unknown>): Promise<number> {
    statements = 0;
    await work();
    return statements;
  }

  it('one allocation alone: 1 statement (the append with its projections, its precondition standing for the start read)', async () => {
    expect(await count(() => api.http().post('/v1/allocations').send(body('web-0')).expect(201))).toBe(1);
  });

  it('a retried allocation: 1 statement', async () => {
    expect(await count(() => api.http().post('/v1/allocations').send(body('web-0')).expect(200))).toBe(1);
  });

  /** A StatefulSet's pod's allocation: the answer's address and the statements it took. */
  async function allocatePod(pod: string): Promise<{ ip: string; statements: number }> {
    let ip = '';
    const statements = await count(async () => {
      const res = await api
        .http()
        .post('/v1/allocations')
        .send({ ...body(`h-${pod}`), pod })
        .expect(201);
      ip = (res.body as { items: Array<{ ip: string }> }).items[0].ip;
    });
    return { ip, statements };
  }

  it("a reserved StatefulSet's pod, its reservation cached: 1 statement (its ordinal's address, the precondition standing for the read)", async () => {
    const reserved = await api.http().put('/v1/statefulsets/ns/db').send({ replicas: 3, pool: 'p' }).expect(200);
    const start = (reserved.body.range as { start: string }).start.split('.').map(Number);
    expect(await allocatePod('db-2')).toEqual({ ip: [...start.slice(0, 3), start[3] + 2].join('.'), statements: 1 });
  });

  it("a reservation another replica reconciled is cached by the pod that read it: the StatefulSet's next pod takes 1 statement", async () => {
    await api.http().put('/v1/statefulsets/ns/cold').send({ replicas: 3, pool: 'p' }).expect(200);
    const repository = api.app.get(EventWriter).repository;
    repository.forget(`statefulset-${statefulSetId(DEFAULT_CLUSTER, 'ns', 'cold')}`);
    expect((await allocatePod('cold-0')).statements).toBeGreaterThan(1);
    // loaded in the background, after the answer
    for (let i = 0; i < 100 && !repository.cached(StatefulSetAggregate, statefulSetId(DEFAULT_CLUSTER, 'ns', 'cold')); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect((await allocatePod('cold-1')).statements).toBe(1);
  });

  it('a release alone: 2 statements (handle 1, append with its projections 1)', async () => {
    expect(await count(() => api.http().delete('/v1/allocations/web-0').expect(204))).toBe(2);
  });

  it('in a named cluster the same: an allocation 1 statement, a release 2 (the cluster, once listed, is not asked for again)', async () => {
    const east = (handle: string) => ({ ...body(handle), node: 'east-1' });
    await api.http().post('/v1/clusters/east/allocations').send(east('east-warm')).expect(201);
    expect(await count(() => api.http().post('/v1/clusters/east/allocations').send(east('east-0')).expect(201))).toBe(1);
    expect(await count(() => api.http().delete('/v1/clusters/east/allocations/east-0').expect(204))).toBe(2);
  });

  it('runs without JIT compilation on the API connections', async () => {
    const { rows } = await api.app.get<Pool>(PG_POOL).query<{ jit: string }>('SHOW jit');
    expect(rows[0].jit).toBe('off');
  });

  // the burst's transactions, counted from the events they appended
  async function burst(prefix: string, pools: string[]): Promise<{ statements: number; appends: number }> {
    const n = await count(() =>
      Promise.all(
        Array.from({ length: 32 }, (_, i) =>
          api
            .http()
            .post('/v1/allocations')
            .send({ ...body(`${prefix}-${i}`), pools })
            .expect(201),
        ),
      ),
    );
    const { rows } = await api.db.pool.query<{ appends: number }>(
      `SELECT count(DISTINCT transaction_id)::int AS appends FROM events WHERE type = 'IpAllocated' AND data ->> 'handle' LIKE $1`,
      [`${prefix}-%`],
    );
    return { statements: n, appends: rows[0].appends };
  }

  it('32 allocations at once from one named pool share their transactions, and read nothing first', async () => {
    const { statements: n, appends } = await burst('burst', ['p']);
    // each append is one statement in a transaction of its own: fewer transactions than allocations
    expect(appends).toBeLessThan(32);
    expect(n).toBe(appends);
  });

  it('32 allocations at once that must read their start (two pools named) share their reads too', async () => {
    const { statements: n, appends } = await burst('read', ['q', 'p']);
    expect(appends).toBeLessThan(32);
    // the rest are the start reads: some, and fewer than one a request
    expect(n - appends).toBeGreaterThan(0);
    expect(n - appends).toBeLessThan(32);
  });
});
