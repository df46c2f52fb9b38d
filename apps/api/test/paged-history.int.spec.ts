import { startTestApi, type TestApi } from '../../../test/support/test-api';

const REUSES = 23;

describe('paged history: an address reused many times, a pool with many events', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi('paged-history');
    // one usable address (10.9.0.1): every allocation reuses it
    await api
      .http()
      .post('/v1/pools')
      .send({ name: 'one', cidr: '10.9.0.0/30', reserved: ['10.9.0.2'] })
      .expect(201);
    for (let i = 0; i < REUSES; i++) {
      await api
        .http()
        .post('/v1/allocations')
        .send({ handle: `h${i}`, node: 'n', namespace: 'ns', pod: `p${i}`, pools: ['one'] })
        .expect(201);
      await api.http().delete(`/v1/allocations/h${i}`).expect(204);
    }
  }, 60_000);
  afterAll(() => api.close());

  /** every page of a list, following `continue` */
  async function pages(path: string, limit: number): Promise<Array<Array<Record<string, unknown>>>> {
    const all = [];
    for (let token: string | null | undefined; ; ) {
      const res = await api
        .http()
        .get(path)
        .query({ limit, ...(token ? { continue: token } : {}) });
      expect(res.status).toBe(200);
      all.push(res.body.items);
      token = res.body.continue;
      expect(token === null || typeof token === 'string').toBe(true);
      if (token === null) return all;
    }
  }

  it("lists an address's history a page at a time, each item once, oldest first", async () => {
    const seen = await pages('/v1/ips/10.9.0.1/history', 5);
    expect(seen.map((p) => p.length)).toEqual([5, 5, 5, 5, 5, 5, 5, 5, 5, 1]);
    const expected = Array.from({ length: REUSES }, (_, i) => [
      { type: 'IpAllocated', handle: `h${i}` },
      { type: 'IpReleased', handle: `h${i}` },
    ]).flat();
    expect(seen.flat().map(({ type, handle }) => ({ type, handle }))).toEqual(expected);
    const whole = await api.http().get('/v1/ips/10.9.0.1/history');
    expect(whole.body.items).toHaveLength(2 * REUSES);
    expect(whole.body.continue).toBeNull();
  });

  it("lists a pool's events a page at a time, each once, in version order", async () => {
    const seen = (await pages('/v1/pools/one/history', 7)).flat();
    expect(seen.map((e) => e.version)).toEqual(Array.from({ length: 1 + 2 * REUSES }, (_, i) => i + 1));
  });

  it('refuses a limit over 1000 and a continue token it did not issue, changing nothing', async () => {
    const before = await api.eventCount();
    for (const path of ['/v1/ips/10.9.0.1/history', '/v1/pools/one/history']) {
      const over = await api.http().get(path).query({ limit: 1001 });
      expect(over.status).toBe(400);
      expect(over.body).toMatchObject({ statusCode: 400, code: 'INVALID_ARGUMENT' });
      for (const token of ['garbage', Buffer.from('["x"]').toString('base64url'), Buffer.from('[1e300]').toString('base64url')]) {
        const bad = await api.http().get(path).query({ continue: token });
        expect(bad.status).toBe(400);
        expect(bad.body).toMatchObject({ statusCode: 400, code: 'INVALID_ARGUMENT' });
      }
    }
    expect(await api.eventCount()).toBe(before);
  });
});
