import { runCli } from '../src/cli';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

describe('clusters: the members of one ledger', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi('clusters');
  });
  afterAll(() => api.close());

  it('has the cluster default before anyone names it, created when ipledger was installed', async () => {
    const res = await api.http().get('/v1/clusters/default').expect(200);
    expect(res.body).toEqual({ name: 'default', labels: {}, version: 0, createdAt: expect.any(String), updatedAt: res.body.createdAt });
    expect(Date.parse(res.body.createdAt)).toBeLessThanOrEqual(Date.now());
    expect((await api.http().get('/v1/clusters').expect(200)).body).toEqual({ items: [res.body], continue: null });
  });

  it('creates a cluster with PUT, replaces its labels keeping createdAt, and a repeated PUT appends nothing', async () => {
    const created = await api
      .http()
      .put('/v1/clusters/east')
      .send({ labels: { region: 'eu' } })
      .expect(200);
    expect(created.body).toEqual({
      name: 'east',
      labels: { region: 'eu' },
      version: 1,
      createdAt: expect.any(String),
      updatedAt: created.body.createdAt,
    });
    const replaced = await api
      .http()
      .put('/v1/clusters/east')
      .send({ labels: { region: 'us' } })
      .expect(200);
    expect(replaced.body).toMatchObject({ labels: { region: 'us' }, version: 2, createdAt: created.body.createdAt });
    const events = await api.eventCount();
    const same = await api
      .http()
      .put('/v1/clusters/east')
      .send({ labels: { region: 'us' } })
      .expect(200);
    expect(same.body).toEqual(replaced.body);
    expect(await api.eventCount()).toBe(events);
    expect((await api.http().get('/v1/clusters/east').expect(200)).body).toEqual(replaced.body);
  });

  it('sets the labels of default too, and keeps it', async () => {
    const res = await api
      .http()
      .put('/v1/clusters/default')
      .send({ labels: { tier: 'core' } })
      .expect(200);
    expect(res.body).toMatchObject({ name: 'default', labels: { tier: 'core' }, version: 1 });
    const refused = await api.http().delete('/v1/clusters/default').expect(409);
    expect(refused.body.code).toBe('CLUSTER_IN_USE');
    expect((await api.http().get('/v1/clusters/default').expect(200)).body).toEqual(res.body);
  });

  it('lists the clusters by name, a page at a time', async () => {
    for (const name of ['west', 'north']) await api.http().put(`/v1/clusters/${name}`).send({ labels: {} }).expect(200);
    const first = await api.http().get('/v1/clusters?limit=2').expect(200);
    expect(first.body.items.map((c: { name: string }) => c.name)).toEqual(['default', 'east']);
    const second = await api.http().get(`/v1/clusters?limit=2&continue=${first.body.continue}`).expect(200);
    expect(second.body.items.map((c: { name: string }) => c.name)).toEqual(['north', 'west']);
    expect(second.body.continue).toBeNull();
  });

  it('deletes a cluster: 204, then 404 CLUSTER_NOT_FOUND; a name made again starts at a new createdAt', async () => {
    const before = (await api.http().get('/v1/clusters/west').expect(200)).body;
    await api.http().delete('/v1/clusters/west').expect(204);
    const gone = await api.http().get('/v1/clusters/west').expect(404);
    expect(gone.body).toMatchObject({ statusCode: 404, code: 'CLUSTER_NOT_FOUND', message: 'cluster "west" does not exist' });
    expect((await api.http().delete('/v1/clusters/west').expect(404)).body.code).toBe('CLUSTER_NOT_FOUND');
    const again = await api.http().put('/v1/clusters/west').send({ labels: {} }).expect(200);
    expect(again.body.version).toBe(3);
    expect(Date.parse(again.body.createdAt)).toBeGreaterThan(Date.parse(before.createdAt));
  });

  it.each([
    ['/v1/clusters/East', { labels: {} }, 'INVALID_NAME'],
    ['/v1/clusters/a_b', { labels: {} }, 'INVALID_NAME'],
    [`/v1/clusters/${'a'.repeat(64)}`, { labels: {} }, 'INVALID_ARGUMENT'],
    ['/v1/clusters/south', { labels: { 'bad key!': 'x' } }, 'INVALID_LABEL'],
    ['/v1/clusters/south', { labels: {}, extra: 1 }, 'INVALID_ARGUMENT'],
    ['/v1/clusters/south', { labels: { zone: 'a\u0000b' } }, 'INVALID_ARGUMENT'],
  ])('refuses PUT %s %j with 400 %s and appends nothing', async (path, body, code) => {
    const events = await api.eventCount();
    const res = await api.http().put(path).send(body).expect(400);
    expect(res.body.code).toBe(code);
    expect(await api.eventCount()).toBe(events);
    expect((await api.http().get('/v1/clusters/south').expect(404)).body.code).toBe('CLUSTER_NOT_FOUND');
  });

  it('records each change as an event of the cluster, and the read model rebuilt from the log equals the live one', async () => {
    const history = await api.db.pool.query<{ type: string }>("SELECT type FROM events WHERE stream_id = 'cluster-east' ORDER BY version");
    expect(history.rows.map((r) => r.type)).toEqual(['ClusterLabelsSet', 'ClusterLabelsSet']);
    const lines: string[] = [];
    expect(await runCli(['replay', '--verify'], (line) => lines.push(line), { DATABASE_URL: api.db.url })).toBe(0);
    expect(lines.at(-1)).toBe(`${await api.eventCount()} events replayed; every read model matches the log`);
    // a row changed by hand is found
    await api.db.pool.query(`UPDATE clusters SET labels = '{"region":"forged"}' WHERE name = 'east'`);
    expect(await runCli(['replay', '--verify'], () => undefined, { DATABASE_URL: api.db.url })).toBe(1);
  });
});
