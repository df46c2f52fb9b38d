import { startTestApi, type TestApi } from '../../../test/support/test-api';

describe('nodes over HTTP', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi('nodes');
    await api.http().post('/v1/pools').send({ name: 'p-a', cidr: '10.8.0.0/24', nodeSelector: 'zone=a' }).expect(201);
    await api.http().post('/v1/pools').send({ name: 'p-any', cidr: '10.8.1.0/24' }).expect(201);
    await api.http().post('/v1/pools').send({ name: 'p-off', cidr: '10.8.2.0/24', disabled: true }).expect(201);
    await api.http().post('/v1/pools').send({ name: 'p-v6', cidr: 'fd08::/64' }).expect(201);
  });
  afterAll(() => api.close());

  it('creates and replaces a node with PUT; a repeated PUT keeps the version', async () => {
    const created = await api
      .http()
      .put('/v1/nodes/worker-1')
      .send({ labels: { zone: 'a', rack: '7' } });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      name: 'worker-1',
      cluster: 'default',
      labels: { zone: 'a', rack: '7' },
      version: 1,
      updatedAt: expect.any(String),
    });
    const replaced = await api
      .http()
      .put('/v1/nodes/worker-1')
      .send({ labels: { zone: 'b' } });
    expect(replaced.body).toMatchObject({ labels: { zone: 'b' }, version: 2 });
    const same = await api
      .http()
      .put('/v1/nodes/worker-1')
      .send({ labels: { zone: 'b' } });
    expect(same.body.version).toBe(2);
    expect((await api.http().get('/v1/nodes/worker-1')).body).toEqual(same.body);
  });

  it.each([
    [{ labels: { 'bad key!': 'x' } }, 'INVALID_LABEL'],
    [{ labels: 'zone=a' }, 'INVALID_ARGUMENT'],
    [{}, 'INVALID_ARGUMENT'],
    [{ labels: {}, extra: 1 }, 'INVALID_ARGUMENT'],
  ])('refuses %j with 400 %s', async (body, code) => {
    const res = await api.http().put('/v1/nodes/worker-x').send(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
    expect((await api.http().get('/v1/nodes/worker-x')).status).toBe(404);
  });

  it('refuses a node name that is not a DNS-1123 subdomain', async () => {
    const res = await api.http().put('/v1/nodes/Worker_1').send({ labels: {} });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_NAME');
  });

  it('lists the pools eligible for a node, with explanations on request', async () => {
    await api
      .http()
      .put('/v1/nodes/worker-a')
      .send({ labels: { zone: 'a' } })
      .expect(200);
    const plain = await api.http().get('/v1/nodes/worker-a/pools');
    expect(plain.status).toBe(200);
    expect(plain.body.items.map((p: { name: string }) => p.name)).toEqual(['p-a', 'p-any', 'p-v6']);
    expect(plain.body.excluded).toBeUndefined();
    const explained = await api.http().get('/v1/nodes/worker-1/pools').query({ explain: true });
    expect(explained.body.items.map((p: { name: string }) => p.name)).toEqual(['p-any', 'p-v6']);
    expect(explained.body.excluded).toEqual([
      { pool: 'p-a', reason: 'nodeSelector "zone=a" does not match the node\'s labels' },
      { pool: 'p-off', reason: 'disabled' },
    ]);
    expect((await api.http().get('/v1/nodes/worker-1/pools').query({ explain: 'maybe' })).status).toBe(400);
  });

  it('deletes a node (204), then answers 404', async () => {
    await api.http().delete('/v1/nodes/worker-1').expect(204);
    const res = await api.http().get('/v1/nodes/worker-1');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NODE_NOT_FOUND');
    expect((await api.http().delete('/v1/nodes/worker-1')).status).toBe(404);
  });
});
