import { call, startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/** Two replicas on one database: this Jest process's app, and the API as a separate OS process. */
describe('two API instances on one database', () => {
  let api: TestApi;
  let other: ApiProcess;
  beforeAll(async () => {
    api = await startTestApi('concurrency');
    other = await startApiProcess(api.db.url, { from: 'source' });
    await api.http().post('/v1/pools').send({ name: 'tiny', cidr: '10.20.0.0/27' }).expect(201);
  }, 90_000);
  afterAll(async () => {
    await other.stop();
    await api.close();
  });

  /** Replica 0 is the in-process app, replica 1 the other process; both answer { status, body }. */
  const send = async (replica: number, method: 'GET' | 'POST', path: string, body?: unknown) =>
    replica === 0
      ? await (method === 'POST'
          ? api
              .http()
              .post(path)
              .send(body as object)
          : api.http().get(path))
      : await call(other.base, method, path, body);

  const request = (i: number) => ({ handle: `c-${i}`, node: 'n', namespace: 'ns', pod: `p-${i}` });

  it('hands 50 parallel requests exactly the 30 usable addresses of a /27, each once', async () => {
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => send(i % 2, 'POST', '/v1/allocations', request(i))));
    const won = responses.filter((r) => r.status === 201);
    const lost = responses.filter((r) => r.status === 409);
    expect(won).toHaveLength(30);
    expect(lost).toHaveLength(20);
    lost.forEach((r) => expect(r.body.code).toBe('POOL_EXHAUSTED'));
    const ips = won.map((r) => r.body.items[0].ip);
    expect(new Set(ips).size).toBe(30);

    // the same 30 handles again, each through the other replica: the same addresses, 200, nothing new
    const before = await api.eventCount();
    const again = await Promise.all(
      won.map((r, i) => send((i + 1) % 2, 'POST', '/v1/allocations', request(Number((r.body.items[0].handle as string).slice(2))))),
    );
    again.forEach((r) => expect(r.status).toBe(200));
    expect(again.map((r) => r.body.items[0].ip)).toEqual(ips);
    expect(await api.eventCount()).toBe(before);
    expect((await send(1, 'GET', '/v1/pools/tiny')).body).toMatchObject({ allocated: '30', free: '0' });
  });

  it('decides on fresh state when the other replica moved a pool that its cache holds', async () => {
    await api.http().post('/v1/pools').send({ name: 'shared', cidr: '10.21.0.0/24' }).expect(201);
    // one at a time, replicas taking turns: every decision starts on a cached state the other replica moved
    const ips: string[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await send(i % 2, 'POST', '/v1/allocations', { ...request(100 + i), pools: ['shared'] });
      expect(res.status).toBe(201);
      ips.push(res.body.items[0].ip as string);
    }
    // the lowest free address each time, as one replica alone would have given
    expect(ips).toEqual(Array.from({ length: 10 }, (_, i) => `10.21.0.${i + 1}`));
  });

  it('never lets two racing pool creations overlap', async () => {
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => send(i % 2, 'POST', '/v1/pools', { name: `race-${i}`, cidr: `10.30.0.0/${24 + (i % 3)}` })),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    responses.filter((r) => r.status !== 201).forEach((r) => expect(r.body.code).toBe('POOL_OVERLAP'));
  });
});
