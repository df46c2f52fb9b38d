import { startTestApi, type TestApi } from '../../../test/support/test-api';

const pod = (handle: string, extra: Record<string, unknown> = {}) => ({
  handle,
  node: 'worker-1',
  namespace: 'default',
  pod: `pod-${handle}`,
  ...extra,
});

describe('allocations over HTTP', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi('allocations');
    await api.http().post('/v1/pools').send({ name: 'a-small', cidr: '10.0.0.0/30' }).expect(201);
    await api
      .http()
      .post('/v1/pools')
      .send({ name: 'b-main', cidr: '10.0.1.0/24', reserved: ['10.0.1.1-10.0.1.9'] })
      .expect(201);
    await api.http().post('/v1/pools').send({ name: 'c-v6', cidr: 'fd00::/120' }).expect(201);
  });
  afterAll(() => api.close());

  it('hands out the lowest free address of the first pool by name, never network or broadcast', async () => {
    const first = await api.http().post('/v1/allocations').send(pod('h1'));
    expect(first.status).toBe(201);
    expect(first.body.items).toEqual([
      {
        handle: 'h1',
        cluster: 'default',
        ip: '10.0.0.1',
        prefixLength: 30,
        cidr: '10.0.0.0/30',
        pool: 'a-small',
        node: 'worker-1',
        namespace: 'default',
        pod: 'pod-h1',
        podUid: null,
        owner: 'external',
        family: 4,
        allocatedAt: expect.any(String),
      },
    ]);
    const second = await api.http().post('/v1/allocations').send(pod('h2'));
    expect(second.body.items[0].ip).toBe('10.0.0.2');
    // a-small (/30) is full: the next comes from b-main, skipping its reserved 10.0.1.1-9
    const third = await api.http().post('/v1/allocations').send(pod('h3'));
    expect(third.body.items[0]).toMatchObject({ ip: '10.0.1.10', pool: 'b-main' });
    const pool = await api.http().get('/v1/pools/a-small');
    expect(pool.body).toMatchObject({ capacity: '2', allocated: '2', free: '0' });
  });

  it('returns 200 and the same address when the handle already holds one, appending nothing', async () => {
    const before = await api.eventCount();
    const again = await api.http().post('/v1/allocations').send(pod('h1'));
    expect(again.status).toBe(200);
    expect(again.body.items.map((a: { ip: string }) => a.ip)).toEqual(['10.0.0.1']);
    expect(await api.eventCount()).toBe(before);
  });

  it('gives a specific address, or 409 IP_IN_USE / IP_RESERVED, or 400 when no eligible pool holds it', async () => {
    const ok = await api
      .http()
      .post('/v1/allocations')
      .send(pod('h-ip', { ip: '10.0.1.200' }));
    expect(ok.status).toBe(201);
    expect(ok.body.items[0].ip).toBe('10.0.1.200');
    const taken = await api
      .http()
      .post('/v1/allocations')
      .send(pod('h-ip2', { ip: '10.0.1.200' }));
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: 'IP_IN_USE', message: expect.stringContaining('h-ip') });
    expect(
      (
        await api
          .http()
          .post('/v1/allocations')
          .send(pod('h-ip3', { ip: '10.0.1.5' }))
      ).body.code,
    ).toBe('IP_RESERVED');
    const outside = await api
      .http()
      .post('/v1/allocations')
      .send(pod('h-ip4', { ip: '192.168.7.7' }));
    expect(outside.status).toBe(400);
    expect(outside.body).toMatchObject({ code: 'IP_NOT_IN_POOL', message: expect.stringContaining('192.168.7.7') });
  });

  it('allocates dual stack atomically: both families or neither', async () => {
    const both = await api
      .http()
      .post('/v1/allocations')
      .send(pod('dual', { families: [4, 6] }));
    expect(both.status).toBe(201);
    expect(both.body.items.map((a: { family: number; ip: string }) => [a.family, a.ip])).toEqual([
      [4, '10.0.1.11'],
      [6, 'fd00::'],
    ]);
    // only the v4 pool can serve 'b-main'; asking it for [4,6] by name leaves v6 with no pool: nothing is taken
    const before = await api.eventCount();
    const half = await api
      .http()
      .post('/v1/allocations')
      .send(pod('half', { families: [4, 6], pools: ['b-main'] }));
    expect(half.status).toBe(409);
    expect(half.body.code).toBe('NO_ELIGIBLE_POOL');
    expect(await api.eventCount()).toBe(before);
    expect((await api.http().get('/v1/allocations/half')).status).toBe(404);
  });

  it('tries explicit pools in the given order', async () => {
    const res = await api
      .http()
      .post('/v1/allocations')
      .send(pod('ordered', { pools: ['c-v6', 'b-main'], families: [6] }));
    expect(res.body.items[0].pool).toBe('c-v6');
    const v4 = await api
      .http()
      .post('/v1/allocations')
      .send(pod('ordered4', { pools: ['a-small', 'b-main'] }));
    expect(v4.body.items[0].pool).toBe('b-main');
    const unknown = await api
      .http()
      .post('/v1/allocations')
      .send(pod('unknown-pool', { pools: ['nope'] }));
    expect(unknown.status).toBe(409);
    expect(unknown.body).toMatchObject({ code: 'NO_ELIGIBLE_POOL', message: expect.stringContaining('nope: not found') });
  });

  it('says POOL_EXHAUSTED and names the full pools', async () => {
    const res = await api
      .http()
      .post('/v1/allocations')
      .send(pod('nope', { pools: ['a-small'] }));
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'POOL_EXHAUSTED', message: expect.stringContaining('a-small') });
  });

  it('skips disabled pools and pools whose nodeSelector does not match the node', async () => {
    await api.http().post('/v1/pools').send({ name: 'sel', cidr: '10.0.2.0/24', nodeSelector: 'zone=b' }).expect(201);
    await api
      .http()
      .put('/v1/nodes/worker-b')
      .send({ labels: { zone: 'b' } })
      .expect(200);
    const refused = await api
      .http()
      .post('/v1/allocations')
      .send(pod('sel-1', { pools: ['sel'] }));
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('nodeSelector "zone=b" does not match');
    const ok = await api
      .http()
      .post('/v1/allocations')
      .send({ ...pod('sel-2', { pools: ['sel'] }), node: 'worker-b' });
    expect(ok.status).toBe(201);
    await api.http().patch('/v1/pools/sel').send({ disabled: true }).expect(200);
    const disabled = await api
      .http()
      .post('/v1/allocations')
      .send({ ...pod('sel-3', { pools: ['sel'] }), node: 'worker-b' });
    expect(disabled.body).toMatchObject({ code: 'NO_ELIGIBLE_POOL', message: expect.stringContaining('sel: disabled') });
    // a disabled pool keeps what it handed out
    expect((await api.http().get('/v1/allocations/sel-2')).status).toBe(200);
  });

  it.each([
    [{ handle: '' }, 'handle'],
    [{ handle: 'x'.repeat(256) }, 'handle'],
    [{ families: [5] }, 'families'],
    [{ families: [4, 4] }, 'families'],
    [{ families: '4' }, 'families'],
    [{ ip: '010.0.0.1' }, 'leading zero'],
    [{ ip: 'abc' }, 'abc'],
    [{ node: 'Bad_Node' }, 'Bad_Node'],
    [{ pools: ['a-small'], matchLabel: 'x' }, 'at most one'],
    [{ poolSelector: 'a in (' }, 'position'],
    [{ surprise: true }, 'surprise'],
    [{ ip: null }, 'ip'],
    [{ pools: null }, 'pools'],
    [{ poolSelector: null }, 'poolSelector'],
    [{ matchLabel: '' }, 'label'],
  ])('refuses %j with 400 and appends nothing', async (override, fragment) => {
    const before = await api.eventCount();
    const res = await api
      .http()
      .post('/v1/allocations')
      .send({ ...pod('bad'), ...override });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(fragment);
    expect(await api.eventCount()).toBe(before);
  });

  it('gets by handle, lists with filters and continue, and releases idempotently', async () => {
    const got = await api.http().get('/v1/allocations/h3');
    expect(got.body.items[0].ip).toBe('10.0.1.10');
    const byPool = await api.http().get('/v1/allocations').query({ pool: 'a-small' });
    expect(byPool.body.items.map((a: { handle: string }) => a.handle)).toEqual(['h1', 'h2']);
    const page1 = await api.http().get('/v1/allocations').query({ limit: 2 });
    const page2 = await api.http().get('/v1/allocations').query({ limit: 2, continue: page1.body.continue });
    expect(page2.body.items[0].handle > page1.body.items[1].handle).toBe(true);
    expect((await api.http().get('/v1/allocations').query({ namespace: 'default', pod: 'pod-h1' })).body.items).toHaveLength(1);

    await api.http().delete('/v1/allocations/h1').expect(204);
    await api.http().delete('/v1/allocations/h1').expect(204);
    await api.http().delete('/v1/allocations/never-held').expect(204);
    const gone = await api.http().get('/v1/allocations/h1');
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('ALLOCATION_NOT_FOUND');
    // the released address is free again and goes to the next request
    const next = await api
      .http()
      .post('/v1/allocations')
      .send(pod('h1-again', { pools: ['a-small'] }));
    expect(next.body.items[0].ip).toBe('10.0.0.1');
  });

  it('releases both families of a dual-stack handle', async () => {
    await api.http().delete('/v1/allocations/dual').expect(204);
    expect((await api.http().get('/v1/allocations').query({ pool: 'c-v6' })).body.items.map((a: { handle: string }) => a.handle)).toEqual([
      'ordered',
    ]);
  });

  it('refuses to delete a pool in use with 409 POOL_IN_USE', async () => {
    const res = await api.http().delete('/v1/pools/b-main');
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('POOL_IN_USE');
  });

  it('records who an allocation is for (owner), refuses an unknown owner, and documents it in OpenAPI', async () => {
    await api.http().post('/v1/pools').send({ name: 'owners', cidr: '10.90.0.0/28' }).expect(201);
    const allocate = (handle: string, extra: object) =>
      api
        .http()
        .post('/v1/allocations')
        .send({ handle, node: 'worker-1', namespace: 'default', pod: handle, pools: ['owners'], ...extra });
    expect((await allocate('o-pod', { podUid: 'u-1' }).expect(201)).body.items[0].owner).toBe('pod');
    expect((await allocate('o-cni', { owner: 'pod' }).expect(201)).body.items[0].owner).toBe('pod');
    expect((await allocate('o-vm', {}).expect(201)).body.items[0].owner).toBe('external');
    const before = await api.eventCount();
    expect((await allocate('o-bad', { owner: 'vm' }).expect(400)).body.code).toBe('INVALID_ARGUMENT');
    expect(await api.eventCount()).toBe(before);
    const { schemas } = (await api.http().get('/docs-json').expect(200)).body.components;
    expect(schemas.AllocationDto.properties.owner).toMatchObject({ enum: ['pod', 'external'] });
    expect(schemas.AllocationDto.required).toContain('owner');
    expect(schemas.CreateAllocationDto.properties.owner).toMatchObject({ enum: ['pod', 'external'] });
  });
});
