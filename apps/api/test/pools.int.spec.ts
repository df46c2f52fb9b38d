import { startTestApi, type TestApi } from '../../../test/support/test-api';

describe('pools over HTTP', () => {
  let api: TestApi;
  beforeAll(async () => (api = await startTestApi('pools')));
  afterAll(() => api.close());

  it('creates a pool and reads it back with its counts', async () => {
    const res = await api
      .http()
      .post('/v1/pools')
      .send({
        name: 'rack-1',
        cidr: '10.1.0.0/24',
        labels: { 'pool-group': 'g1' },
        nodeSelector: 'zone in (a, b)',
        reserved: ['10.1.0.1', '10.1.0.250-10.1.0.255'],
      });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'rack-1',
      cidr: '10.1.0.0/24',
      family: 4,
      labels: { 'pool-group': 'g1' },
      nodeSelector: 'zone in (a,b)',
      reserved: ['10.1.0.1', '10.1.0.250-10.1.0.255'],
      disabled: false,
      capacity: '254',
      allocated: '0',
      reservedCount: '6',
      free: '248',
      version: 1,
    });
    expect(new Date(res.body.createdAt).toISOString()).toBe(res.body.createdAt);
    const got = await api.http().get('/v1/pools/rack-1');
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it('counts an IPv6 /64 as a decimal string', async () => {
    const res = await api.http().post('/v1/pools').send({ name: 'v6', cidr: 'FD00:0:0:1::/64' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ cidr: 'fd00:0:0:1::/64', family: 6, capacity: '18446744073709551616', free: '18446744073709551616' });
  });

  it('refuses a duplicate name with 409 POOL_EXISTS and an overlapping CIDR with 409 POOL_OVERLAP', async () => {
    const dup = await api.http().post('/v1/pools').send({ name: 'rack-1', cidr: '10.9.0.0/24' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ statusCode: 409, error: 'Conflict', code: 'POOL_EXISTS', message: expect.stringContaining('rack-1') });
    const overlap = await api.http().post('/v1/pools').send({ name: 'rack-2', cidr: '10.1.0.128/25' });
    expect(overlap.status).toBe(409);
    expect(overlap.body.code).toBe('POOL_OVERLAP');
    expect(overlap.body.message).toContain('rack-1');
  });

  it.each([
    [{ name: 'a', cidr: '10.0.0.0/33' }, 'INVALID_CIDR', 'prefix length 33'],
    [{ name: 'a', cidr: '10.0.0.1/24' }, 'INVALID_CIDR', '10.0.0.0/24'],
    [{ name: 'a', cidr: '::1/129' }, 'INVALID_CIDR', '129'],
    [{ name: 'a', cidr: '300.1.1.1/32' }, 'INVALID_CIDR', '300'],
    [{ name: 'a', cidr: '010.0.0.1/32' }, 'INVALID_CIDR', 'leading zero'],
    [{ name: 'a', cidr: 'abc' }, 'INVALID_CIDR', 'abc'],
    [{ name: 'Not_DNS', cidr: '10.50.0.0/24' }, 'INVALID_NAME', 'Not_DNS'],
    [{ name: 'a', cidr: '10.50.0.0/24', labels: { '-bad': 'x' } }, 'INVALID_LABEL', '-bad'],
    [{ name: 'a', cidr: '10.50.0.0/24', labels: { ok: 'x'.repeat(64) } }, 'INVALID_LABEL', 'ok'],
    [{ name: 'a', cidr: '10.50.0.0/24', nodeSelector: 'zone in (a' }, 'INVALID_SELECTOR', 'position'],
    [{ name: 'a', cidr: '10.50.0.0/24', reserved: ['10.51.0.1'] }, 'INVALID_IP', 'not inside'],
    [{ name: 'a', cidr: '10.50.0.0/24', color: 'red' }, 'INVALID_ARGUMENT', 'color'],
    [{ name: 'a', cidr: 24 }, 'INVALID_ARGUMENT', 'cidr'],
    [{ name: 'a', cidr: '10.50.0.0/24', disabled: 'yes' }, 'INVALID_ARGUMENT', 'disabled'],
  ])('refuses %j with 400 %s and appends nothing', async (body, code, fragment) => {
    const before = await api.eventCount();
    const res = await api.http().post('/v1/pools').send(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code });
    expect(res.body.message).toContain(fragment);
    expect(await api.eventCount()).toBe(before);
  });

  it('refuses malformed JSON with 400 and a body over 1 MiB with 413', async () => {
    const bad = await api.http().post('/v1/pools').set('content-type', 'application/json').send('{"name":');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_ARGUMENT');
    const big = await api
      .http()
      .post('/v1/pools')
      .send({ name: 'big', cidr: '10.60.0.0/24', labels: { a: 'x'.repeat(1_100_000) } });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('patches labels, nodeSelector and disabled; a repeated PATCH appends nothing', async () => {
    const res = await api
      .http()
      .patch('/v1/pools/rack-1')
      .send({ labels: { 'pool-group': 'g2' }, disabled: true, nodeSelector: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ labels: { 'pool-group': 'g2' }, disabled: true, nodeSelector: null, version: 2 });
    const before = await api.eventCount();
    const again = await api
      .http()
      .patch('/v1/pools/rack-1')
      .send({ labels: { 'pool-group': 'g2' }, disabled: true });
    expect(again.body.version).toBe(2);
    expect(await api.eventCount()).toBe(before);
    expect((await api.http().patch('/v1/pools/nope').send({ disabled: true })).body.code).toBe('POOL_NOT_FOUND');
    expect((await api.http().patch('/v1/pools/rack-1').send({ cidr: 'fd00::/64' })).status).toBe(400);
  });

  it('lists pools by label selector and by node, with limit and continue', async () => {
    for (const [i, group] of ['g1', 'g1', 'g2'].entries()) {
      await api
        .http()
        .post('/v1/pools')
        .send({ name: `list-${i}`, cidr: `10.70.${i}.0/24`, labels: { grp: group } })
        .expect(201);
    }
    const g1 = await api.http().get('/v1/pools').query({ labelSelector: 'grp=g1' });
    expect(g1.body.items.map((p: { name: string }) => p.name)).toEqual(['list-0', 'list-1']);
    const page1 = await api.http().get('/v1/pools').query({ labelSelector: 'grp', limit: 2 });
    expect(page1.body.items).toHaveLength(2);
    expect(page1.body.continue).toEqual(expect.any(String));
    const page2 = await api.http().get('/v1/pools').query({ labelSelector: 'grp', limit: 2, continue: page1.body.continue });
    expect(page2.body.items.map((p: { name: string }) => p.name)).toEqual(['list-2']);
    expect(page2.body.continue).toBeNull();
    expect((await api.http().get('/v1/pools').query({ labelSelector: 'grp in (' })).body.code).toBe('INVALID_SELECTOR');
    expect((await api.http().get('/v1/pools').query({ limit: 1001 })).status).toBe(400);
    expect((await api.http().get('/v1/pools').query({ continue: 'garbage' })).status).toBe(400);

    await api.http().post('/v1/pools').send({ name: 'zoned', cidr: '10.71.0.0/24', nodeSelector: 'zone=b' }).expect(201);
    await api
      .http()
      .put('/v1/nodes/n-a')
      .send({ labels: { zone: 'a' } })
      .expect(200);
    const forNode = await api.http().get('/v1/pools').query({ node: 'n-a', limit: 1000 });
    expect(forNode.body.items.map((p: { name: string }) => p.name)).not.toContain('zoned');
    expect(forNode.body.items.map((p: { name: string }) => p.name)).toContain('list-0');
    expect((await api.http().get('/v1/pools').query({ node: 'ghost' })).body.code).toBe('NODE_NOT_FOUND');
  });

  it('deletes an unused pool (204), then answers 404', async () => {
    await api.http().delete('/v1/pools/list-2').expect(204);
    const gone = await api.http().get('/v1/pools/list-2');
    expect(gone.status).toBe(404);
    expect(gone.body.code).toBe('POOL_NOT_FOUND');
    expect((await api.http().delete('/v1/pools/list-2')).status).toBe(404);
    // the name and the CIDR are free again
    await api.http().post('/v1/pools').send({ name: 'list-2', cidr: '10.70.2.0/24' }).expect(201);
  });

  it('serves the OpenAPI document at /docs-json and Swagger UI at /docs', async () => {
    const doc = await api.http().get('/docs-json');
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/pools',
        '/v1/pools/{name}',
        '/v1/nodes/{name}/pools',
        '/v1/allocations',
        '/v1/statefulsets/{namespace}/{name}',
        '/v1/events',
      ]),
    );
    expect((await api.http().get('/docs')).status).toBe(200);
  });
});
