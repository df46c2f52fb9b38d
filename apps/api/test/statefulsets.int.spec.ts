import { expectReplayVerifyClean } from '../../../test/support/replay-verify';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

const pod = (name: string, handle = `h-${name}`, namespace = 'apps') => ({ handle, node: 'worker-1', namespace, pod: name });
const ips = (res: { body: { items: Array<{ ip: string }> } }) => res.body.items.map((a) => a.ip);

describe('StatefulSets over HTTP', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi('statefulsets');
    await api
      .http()
      .post('/v1/pools')
      .send({ name: 'sts', cidr: '10.9.0.0/24', labels: { tier: 'sts' } })
      .expect(201);
    await api
      .http()
      .post('/v1/pools')
      .send({ name: 'tiny', cidr: '10.9.1.0/29', labels: { tier: 'tiny' } })
      .expect(201);
  });
  afterAll(() => api.close());

  it('reserves one continuous range and maps pod <name>-<k> to start + k', async () => {
    const res = await api.http().put('/v1/statefulsets/apps/web').send({ replicas: 3, pool: 'sts' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      cluster: 'default',
      namespace: 'apps',
      name: 'web',
      replicas: 3,
      ordinalsStart: 0,
      pool: 'sts',
      mode: 'continuous',
      range: { start: '10.9.0.1', end: '10.9.0.3' },
      reason: null,
      version: 1,
    });
    expect((await api.http().get('/v1/statefulsets/apps/web')).body).toEqual(res.body);
    const web2 = await api.http().post('/v1/allocations').send(pod('web-2'));
    expect(web2.status).toBe(201);
    expect(web2.body.items[0]).toMatchObject({ ip: '10.9.0.3', pool: 'sts', statefulSet: { namespace: 'apps', name: 'web', ordinal: 2 } });
    expect(ips(await api.http().post('/v1/allocations').send(pod('web-0')))).toEqual(['10.9.0.1']);
    // other pods go around the range, and the pool counts the unheld range address as reserved
    expect(
      ips(
        await api
          .http()
          .post('/v1/allocations')
          .send({ ...pod('other'), pools: ['sts'] }),
      ),
    ).toEqual(['10.9.0.4']);
    expect((await api.http().get('/v1/pools/sts')).body).toMatchObject({ allocated: '3', reservedCount: '1', free: '250' });
  });

  it('shows each pool its StatefulSet ranges and the range addresses no pod holds, now and at an earlier instant', async () => {
    const now = new Date().toISOString();
    const current = (await api.http().get('/v1/pools/sts')).body;
    expect(current).toMatchObject({
      rangeReservedCount: '1',
      statefulSetRanges: [{ namespace: 'apps', name: 'web', start: '10.9.0.1', end: '10.9.0.3' }],
    });
    const listed = (await api.http().get('/v1/pools?labelSelector=tier%3Dsts')).body.items.find((p: { name: string }) => p.name === 'sts');
    expect(listed).toMatchObject({ rangeReservedCount: '1', statefulSetRanges: current.statefulSetRanges });
    const then = (await api.http().get(`/v1/pools/sts?at=${now}`)).body;
    expect(then).toMatchObject({ reservedCount: '1', rangeReservedCount: '1', statefulSetRanges: current.statefulSetRanges });
  });

  it('appends nothing for the same PUT again', async () => {
    const before = await api.eventCount();
    const again = await api.http().put('/v1/statefulsets/apps/web').send({ replicas: 3, pool: 'sts' });
    expect(again.body.version).toBe(1);
    expect(await api.eventCount()).toBe(before);
  });

  it('maps ordinals from ordinalsStart', async () => {
    const res = await api.http().put('/v1/statefulsets/apps/db').send({ replicas: 2, ordinalsStart: 3, poolSelector: 'tier=sts' });
    expect(res.body).toMatchObject({ mode: 'continuous', range: { start: '10.9.0.5', end: '10.9.0.6' }, ordinalsStart: 3 });
    expect(ips(await api.http().post('/v1/allocations').send(pod('db-4')))).toEqual(['10.9.0.6']);
    expect(ips(await api.http().post('/v1/allocations').send(pod('db-3')))).toEqual(['10.9.0.5']);
  });

  it('gives a restarted pod (new handle) the same address', async () => {
    await api.http().delete('/v1/allocations/h-web-0').expect(204);
    // .1 goes back to the range: web's .1 and .2 are held back now
    expect((await api.http().get('/v1/pools/sts')).body.reservedCount).toBe('2');
    expect(ips(await api.http().post('/v1/allocations').send(pod('web-0', 'h-web-0-restarted')))).toEqual(['10.9.0.1']);
  });

  it('lets pods that held addresses before the reservation keep them until they are released', async () => {
    const before = await api
      .http()
      .post('/v1/allocations')
      .send({ ...pod('cache-0'), pools: ['tiny'] });
    const held = before.body.items[0].ip;
    expect(before.body.items[0].statefulSet).toBeUndefined();
    const res = await api.http().put('/v1/statefulsets/apps/cache').send({ replicas: 1, pool: 'sts' });
    expect(res.body.mode).toBe('continuous');
    expect((await api.http().get('/v1/allocations/h-cache-0')).body.items[0].ip).toBe(held);
    await api.http().delete('/v1/allocations/h-cache-0').expect(204);
    const after = await api.http().post('/v1/allocations').send(pod('cache-0', 'h-cache-0-new'));
    expect(after.body.items[0]).toMatchObject({ ip: res.body.range.start, statefulSet: { name: 'cache', ordinal: 0 } });
    await api.http().delete('/v1/statefulsets/apps/cache').expect(204);
  });

  it('falls back to dynamic with the largest free run as the reason, and pods get addresses on the fly', async () => {
    const res = await api.http().put('/v1/statefulsets/apps/big').send({ replicas: 7, pool: 'tiny' });
    expect(res.body).toMatchObject({ mode: 'dynamic', range: null, pool: null });
    expect(res.body.reason).toContain('the largest free run is 6 addresses from 10.9.1.1 in pool "tiny"');
    const big0 = await api
      .http()
      .post('/v1/allocations')
      .send({ ...pod('big-0'), pools: ['tiny'] });
    expect(big0.body.items[0]).toMatchObject({ ip: '10.9.1.1', statefulSet: { name: 'big', ordinal: 0 } });
  });

  it('extends the range in place on scale up, or says which ordinals go dynamic when blocked', async () => {
    // db holds .5-.6 and .7 is free: grows in place
    const grown = await api.http().put('/v1/statefulsets/apps/db').send({ replicas: 3, ordinalsStart: 3, poolSelector: 'tier=sts' });
    expect(grown.body).toMatchObject({ range: { start: '10.9.0.5', end: '10.9.0.7' }, reason: null });
    // web holds .1-.3 and .4 is taken by "other": blocked
    const blocked = await api.http().put('/v1/statefulsets/apps/web').send({ replicas: 5, pool: 'sts' });
    expect(blocked.body).toMatchObject({ mode: 'continuous', range: { start: '10.9.0.1', end: '10.9.0.3' }, replicas: 5 });
    expect(blocked.body.reason).toBe('ordinals 3 to 4 get addresses on the fly: the addresses after 10.9.0.3 are taken');
    const web4 = await api
      .http()
      .post('/v1/allocations')
      .send({ ...pod('web-4'), pools: ['sts'] });
    expect(web4.body.items[0]).toMatchObject({ ip: '10.9.0.8', statefulSet: { name: 'web', ordinal: 4 } });
  });

  it('scales down: free addresses above the new count at once, held ones when their pod lets go', async () => {
    const res = await api.http().put('/v1/statefulsets/apps/web').send({ replicas: 1, pool: 'sts' });
    expect(res.body).toMatchObject({ range: { start: '10.9.0.1', end: '10.9.0.1' }, reason: null });
    // web-2 still holds .3: it is not handed to anyone else until released
    expect((await api.http().get('/v1/allocations/h-web-2')).body.items[0].ip).toBe('10.9.0.3');
    await api.http().delete('/v1/allocations/h-web-2').expect(204);
    expect(
      ips(
        await api
          .http()
          .post('/v1/allocations')
          .send({ ...pod('late'), ip: '10.9.0.3' }),
      ),
    ).toEqual(['10.9.0.3']);
    expect(
      ips(
        await api
          .http()
          .post('/v1/allocations')
          .send({ ...pod('later'), pools: ['sts'] }),
      ),
    ).toEqual(['10.9.0.2']);
  });

  it('deletes: the range and every address of its pods are released, GET answers 404, a new PUT starts afresh', async () => {
    await api.http().delete('/v1/statefulsets/apps/web').expect(204);
    expect((await api.http().get('/v1/statefulsets/apps/web')).status).toBe(404);
    const left = await api.http().get('/v1/allocations').query({ namespace: 'apps', limit: 1000 });
    expect(left.body.items.filter((a: { statefulSet?: { name: string } }) => a.statefulSet?.name === 'web')).toEqual([]);
    expect((await api.http().delete('/v1/statefulsets/apps/web')).body.code).toBe('STATEFULSET_NOT_FOUND');
    // .1 (web-0's) is free again; .2 to .7 are held by others
    const again = await api.http().put('/v1/statefulsets/apps/web').send({ replicas: 1, pool: 'sts' });
    expect(again.body).toMatchObject({ mode: 'continuous', range: { start: '10.9.0.1', end: '10.9.0.1' } });
  });

  it('reserves 20 StatefulSets of 10 in parallel into a /24: continuous, disjoint, the ones that do not fit dynamic', async () => {
    // 10.9.2.1-99 reserved: 155 usable addresses, room for 15 ranges of 10
    await api
      .http()
      .post('/v1/pools')
      .send({ name: 'crowd', cidr: '10.9.2.0/24', reserved: ['10.9.2.1-10.9.2.99'] })
      .expect(201);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api.http().put(`/v1/statefulsets/crowd/s-${i}`).send({ replicas: 10, pool: 'crowd' })),
    );
    responses.forEach((r) => expect(r.status).toBe(200));
    const continuous = responses.filter((r) => r.body.mode === 'continuous').map((r) => r.body.range);
    const dynamic = responses.filter((r) => r.body.mode === 'dynamic');
    expect(continuous).toHaveLength(15);
    expect(dynamic).toHaveLength(5);
    dynamic.forEach((r) => expect(r.body.reason).toContain('no eligible pool has 10 continuous free addresses'));
    const last = (ip: string) => Number(ip.split('.')[3]);
    const spans = continuous.map((r: { start: string; end: string }) => [last(r.start), last(r.end)]).sort((a, b) => a[0] - b[0]);
    spans.forEach(([start, end], i) => {
      expect(end - start).toBe(9);
      expect(start).toBeGreaterThanOrEqual(100);
      if (i > 0) expect(start).toBeGreaterThan(spans[i - 1][1]);
    });
    expect((await api.http().get('/v1/pools/crowd')).body).toMatchObject({ reservedCount: String(99 + 150), free: '5' });
  });

  it('keeps one outcome for concurrent PUTs of one key', async () => {
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => api.http().put('/v1/statefulsets/apps/same').send({ replicas: 2, pool: 'tiny' })),
    );
    const ranges = new Set(responses.map((r) => JSON.stringify(r.body.range)));
    expect(ranges.size).toBe(1);
    const events = await api.db.pool.query(`SELECT count(*) FROM events WHERE stream_id = 'statefulset-apps/same'`);
    expect(Number(events.rows[0].count)).toBe(1);
  });

  it.each([
    [{ replicas: -1 }, 'replicas'],
    [{ replicas: 1.5 }, 'replicas'],
    [{ replicas: 2, ordinalsStart: -3 }, 'ordinalsStart'],
    // the last pod's ordinal, 2147483649, would run past int32
    [{ replicas: 3, ordinalsStart: 2147483647, pool: 'sts' }, 'runs past ordinal 2147483647'],
    [{ replicas: 2, ordinalsStart: 2147483647, pool: 'sts' }, 'ordinalsStart + replicas may be at most 2147483648'],
    [{ replicas: 2, pool: 'sts', poolSelector: 'a=b' }, 'at most one'],
    [{ replicas: 2, matchLabel: 'pool-group' }, 'needs node'],
    [{ replicas: 2, colour: 'red' }, 'colour'],
  ])('refuses %j with 400 and appends nothing', async (body, fragment) => {
    const before = await api.eventCount();
    const res = await api.http().put('/v1/statefulsets/apps/bad').send(body);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(fragment);
    expect(await api.eventCount()).toBe(before);
  });

  it('takes a StatefulSet whose last ordinal is the largest int32, and gives that pod its address', async () => {
    const res = await api.http().put('/v1/statefulsets/apps/edge').send({ replicas: 2, ordinalsStart: 2147483646, pool: 'sts' });
    expect(res.status).toBe(200);
    const last = await api.http().post('/v1/allocations').send(pod('edge-2147483647'));
    expect(last.body.items[0]).toMatchObject({ ip: res.body.range.end, statefulSet: { ordinal: 2147483647 } });
    await api.http().delete('/v1/statefulsets/apps/edge').expect(204);
  });

  it('rebuilds every read model from the log exactly as it is live (replay --verify)', async () => {
    await expectReplayVerifyClean(api.db.url);
  });
});
