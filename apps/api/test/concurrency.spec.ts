import { startTestApi, type TestApi } from '../../../test/support/test-api';

describe('two API instances on one database', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi('concurrency', { replicas: 2 });
    await api.http(0).post('/v1/pools').send({ name: 'tiny', cidr: '10.20.0.0/27' }).expect(201);
  });
  afterAll(() => api.close());

  const request = (i: number) => ({ handle: `c-${i}`, node: 'n', namespace: 'ns', pod: `p-${i}` });

  it('hands 50 parallel requests exactly the 30 usable addresses of a /27, each once', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        api
          .http(i % 2)
          .post('/v1/allocations')
          .send(request(i)),
      ),
    );
    const won = responses.filter((r) => r.status === 201);
    const lost = responses.filter((r) => r.status === 409);
    expect(won).toHaveLength(30);
    expect(lost).toHaveLength(20);
    lost.forEach((r) => expect(r.body.code).toBe('POOL_EXHAUSTED'));
    const ips = won.map((r) => r.body.items[0].ip);
    expect(new Set(ips).size).toBe(30);

    // the same 30 handles again, through the other replica: the same addresses, 200, nothing new
    const winners = won.map((r) => r.body.items[0].handle as string);
    const again = await Promise.all(
      winners.map((handle, i) =>
        api
          .http((i + 1) % 2)
          .post('/v1/allocations')
          .send({ ...request(Number(handle.slice(2))) }),
      ),
    );
    again.forEach((r) => expect(r.status).toBe(200));
    expect(again.map((r) => r.body.items[0].ip)).toEqual(ips);
    const pool = await api.http(1).get('/v1/pools/tiny');
    expect(pool.body).toMatchObject({ allocated: '30', free: '0' });
  });

  it('never lets two racing pool creations overlap', async () => {
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api
          .http(i % 2)
          .post('/v1/pools')
          .send({ name: `race-${i}`, cidr: `10.30.0.0/${24 + (i % 3)}` }),
      ),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    responses.filter((r) => r.status !== 201).forEach((r) => expect(r.body.code).toBe('POOL_OVERLAP'));
  });
});
