import { expectReplayVerifyClean } from '../../../test/support/replay-verify';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('address space over HTTP: pools that grow and shrink in place, and a reuse delay', () => {
  let api: TestApi;
  beforeAll(async () => (api = await startTestApi('address_space')));
  afterAll(() => api.close());

  const allocate = (handle: string, pool: string, ip?: string) =>
    api
      .http()
      .post('/v1/allocations')
      .send({ handle, node: 'n1', namespace: 'ns', pod: handle, pools: [pool], ...(ip ? { ip } : {}) });
  const ipOf = (res: { status: number; body: { items?: Array<{ ip: string }> } }) => {
    expect(res.status).toBe(201);
    return res.body.items![0].ip;
  };

  describe('grow and shrink', () => {
    let beforeGrow: string;

    it('grows a full /28 to a /27 in place and hands out the new addresses, the old ones untouched', async () => {
      expect((await api.http().post('/v1/pools').send({ name: 'grow', cidr: '10.50.0.0/28' })).status).toBe(201);
      const held: string[] = [];
      for (let i = 0; i < 14; i++) held.push(ipOf(await allocate(`g${i}`, 'grow')));
      expect((await allocate('g-full', 'grow')).body.code).toBe('POOL_EXHAUSTED');
      beforeGrow = (await api.http().get('/v1/pools/grow')).body.updatedAt;
      await sleep(5);

      const grown = await api.http().patch('/v1/pools/grow').send({ cidr: '10.50.0.0/27' });
      expect(grown.status).toBe(200);
      expect(grown.body).toMatchObject({ cidr: '10.50.0.0/27', capacity: '30', allocated: '14', free: '16' });
      const added: string[] = [];
      for (let i = 14; i < 30; i++) added.push(ipOf(await allocate(`g${i}`, 'grow')));
      // the old broadcast address (.15) is an ordinary address of the /27
      expect(added).toEqual(Array.from({ length: 16 }, (_, i) => `10.50.0.${15 + i}`));
      expect((await allocate('g-full', 'grow')).body.code).toBe('POOL_EXHAUSTED');
      const first = await api.http().get('/v1/allocations/g0');
      expect(first.body.items[0]).toMatchObject({ ip: held[0], cidr: '10.50.0.0/27', prefixLength: 27 });
    });

    it('refuses a grow that overlaps another pool with 409 POOL_OVERLAP, appending nothing', async () => {
      expect((await api.http().post('/v1/pools').send({ name: 'neighbour', cidr: '10.50.0.32/27' })).status).toBe(201);
      const before = await api.eventCount();
      const res = await api.http().patch('/v1/pools/grow').send({ cidr: '10.50.0.0/26' });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'POOL_OVERLAP', message: expect.stringContaining('neighbour') });
      expect(await api.eventCount()).toBe(before);
      expect((await api.http().get('/v1/pools/grow')).body.cidr).toBe('10.50.0.0/27');
    });

    it('shows the pool as it was before the grow with ?at=', async () => {
      const then = await api.http().get(`/v1/pools/grow?at=${beforeGrow}`);
      expect(then.status).toBe(200);
      expect(then.body).toMatchObject({ cidr: '10.50.0.0/28', capacity: '14', allocated: '14', free: '0' });
      const allocations = await api.http().get(`/v1/allocations?pool=grow&at=${beforeGrow}`);
      expect(allocations.body.items.map((a: { cidr: string }) => a.cidr)).toEqual(Array(14).fill('10.50.0.0/28'));
    });

    it('refuses a shrink while an address outside is held, naming it, and accepts it once released', async () => {
      expect((await api.http().post('/v1/pools').send({ name: 'shrink', cidr: '10.60.0.0/24', gateway: '10.60.0.1' })).status).toBe(201);
      ipOf(await allocate('s-low', 'shrink'));
      ipOf(await allocate('s-high', 'shrink', '10.60.0.200'));
      ipOf(await allocate('s-higher', 'shrink', '10.60.0.201'));
      const before = await api.eventCount();
      const refused = await api.http().patch('/v1/pools/shrink').send({ cidr: '10.60.0.0/25' });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('POOL_IN_USE');
      expect(refused.body.message).toContain('10.60.0.200 is held by handle "s-high"');
      expect(await api.eventCount()).toBe(before);

      await api.http().delete('/v1/allocations/s-high').expect(204);
      const still = await api.http().patch('/v1/pools/shrink').send({ cidr: '10.60.0.0/25' });
      expect(still.body.message).toContain('10.60.0.201');
      await api.http().delete('/v1/allocations/s-higher').expect(204);

      const shrunk = await api.http().patch('/v1/pools/shrink').send({ cidr: '10.60.0.0/25' });
      expect(shrunk.status).toBe(200);
      expect(shrunk.body).toMatchObject({ cidr: '10.60.0.0/25', capacity: '126', allocated: '1', reservedCount: '1', free: '124' });
      // the gateway stops a shrink to the upper half
      const gateway = await api.http().patch('/v1/pools/shrink').send({ cidr: '10.60.0.64/26' });
      expect(gateway.body).toMatchObject({ code: 'POOL_IN_USE', message: expect.stringContaining('10.60.0.1 is the gateway') });
    });

    it('refuses a CIDR of the other family (400) or one that neither contains nor lies inside the pool (409)', async () => {
      const before = await api.eventCount();
      const family = await api.http().patch('/v1/pools/shrink').send({ cidr: 'fd00::/64' });
      expect(family.status).toBe(400);
      expect(family.body.code).toBe('INVALID_CIDR');
      const unrelated = await api.http().patch('/v1/pools/shrink').send({ cidr: '10.61.0.0/24' });
      expect(unrelated.status).toBe(409);
      expect(unrelated.body.code).toBe('CIDR_NOT_NESTED');
      const malformed = await api.http().patch('/v1/pools/shrink').send({ cidr: '10.60.0.1/25' });
      expect(malformed.status).toBe(400);
      expect(await api.eventCount()).toBe(before);
    });
  });

  describe('reuse delay', () => {
    it('keeps a released address from new holders for reuseDelaySeconds while others are free, and hands it out afterwards', async () => {
      const created = await api.http().post('/v1/pools').send({ name: 'cool', cidr: '10.70.0.0/29', reuseDelaySeconds: 2 });
      expect(created.body).toMatchObject({ reuseDelaySeconds: 2 });
      expect(ipOf(await allocate('c1', 'cool'))).toBe('10.70.0.1');
      await api.http().delete('/v1/allocations/c1').expect(204);
      const released = Date.now();
      // .1 is cooling: the next ones come from above it
      const next: string[] = [];
      for (let i = 2; i <= 6; i++) next.push(ipOf(await allocate(`c${i}`, 'cool')));
      expect(next).toEqual(['10.70.0.2', '10.70.0.3', '10.70.0.4', '10.70.0.5', '10.70.0.6']);
      const exhausted = await allocate('c7', 'cool');
      expect(Date.now() - released).toBeLessThan(2000);
      expect(exhausted.status).toBe(409);
      expect(exhausted.body.code).toBe('POOL_EXHAUSTED');

      await sleep(2100 - (Date.now() - released));
      expect(ipOf(await allocate('c7', 'cool'))).toBe('10.70.0.1');
    });

    it('says how many addresses are cooling down and when the first is free again', async () => {
      for (const handle of ['c3', 'c5', 'c6']) await api.http().delete(`/v1/allocations/${handle}`).expect(204);
      const { rows } = await api.db.pool.query<{ at: Date }>(
        `SELECT min(recorded_at) AS at FROM events WHERE type = 'IpReleased' AND data ->> 'handle' = 'c3'`,
      );
      const res = await allocate('c8', 'cool');
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('POOL_EXHAUSTED');
      const freeAt = new Date(rows[0].at.getTime() + 2000).toISOString();
      expect(res.body.message).toContain(
        `3 address(es) cooling down after release (reuseDelaySeconds 2), the first free again at ${freeAt}`,
      );
    });

    it('gives a cooling address to a request that names it, and never delays a pool without a delay', async () => {
      expect(ipOf(await allocate('c9', 'cool', '10.70.0.5'))).toBe('10.70.0.5');
      expect((await api.http().post('/v1/pools').send({ name: 'plain', cidr: '10.71.0.0/29' })).body.reuseDelaySeconds).toBe(0);
      expect(ipOf(await allocate('p1', 'plain'))).toBe('10.71.0.1');
      await api.http().delete('/v1/allocations/p1').expect(204);
      expect(ipOf(await allocate('p2', 'plain'))).toBe('10.71.0.1');
    });

    it('takes reuseDelaySeconds in a PATCH, within its limit', async () => {
      const set = await api.http().patch('/v1/pools/plain').send({ reuseDelaySeconds: 60 });
      expect(set.body.reuseDelaySeconds).toBe(60);
      const before = await api.eventCount();
      for (const reuseDelaySeconds of [-1, 3601, 1.5, '5']) {
        const res = await api.http().patch('/v1/pools/plain').send({ reuseDelaySeconds });
        expect(res.status).toBe(400);
      }
      expect(await api.eventCount()).toBe(before);
    });
  });

  it('rebuilds every read model from the log exactly as it is live (replay --verify)', async () => {
    await expectReplayVerifyClean(api.db.url);
  });
});
