import { randomUUID } from 'node:crypto';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { expectReplayVerifyClean } from '../../../test/support/replay-verify';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/**
 * API.md "Clusters: one ledger for a fleet", "Pools are fleet-wide": a pool's clusterSelector
 * limits the clusters that may allocate from it, read from the clusters' labels at each allocation.
 */
describe('pools: clusterSelector', () => {
  let api: TestApi;
  let bus: TestBus;
  const allocation = (handle: string, extra: Record<string, unknown> = {}) => ({
    handle,
    node: 'worker-1',
    namespace: 'shop',
    pod: handle.split(':')[0],
    ...extra,
  });
  const allocate = (cluster: string, handle: string, extra: Record<string, unknown> = {}) =>
    api.http().post(`/v1/clusters/${cluster}/allocations`).send(allocation(handle, extra));

  beforeAll(async () => {
    bus = await createTestBus('pool_cluster_selector');
    api = await startTestApi('pool_cluster_selector', { env: bus.env });
    await api
      .http()
      .put('/v1/clusters/east')
      .send({ labels: { region: 'east' } })
      .expect(200);
    await api
      .http()
      .put('/v1/clusters/west')
      .send({ labels: { region: 'west' } })
      .expect(200);
  });
  afterAll(async () => {
    await api.close();
    await bus.close();
  });

  it('creates a pool with a clusterSelector in canonical form, and one without shows null', async () => {
    const made = await api
      .http()
      .post('/v1/pools')
      .send({ name: 'east-only', cidr: '10.91.0.0/24', clusterSelector: 'region = east' })
      .expect(201);
    expect(made.body).toMatchObject({ name: 'east-only', clusterSelector: 'region=east', nodeSelector: null });
    const shared = await api.http().post('/v1/pools').send({ name: 'shared', cidr: '10.92.0.0/24' }).expect(201);
    expect(shared.body.clusterSelector).toBeNull();
    const { rows } = await api.db.pool.query(`SELECT data FROM events WHERE type = 'PoolCreated' ORDER BY position`);
    expect(rows.map((r: { data: Record<string, unknown> }) => r.data.clusterSelector)).toEqual(['region=east', undefined]);
  });

  it('lets a matching cluster allocate from the pool and refuses another cluster naming it, with the reason', async () => {
    const east = await allocate('east', 'e1:eth0', { pools: ['east-only'] }).expect(201);
    expect(east.body.items[0]).toMatchObject({ pool: 'east-only', cluster: 'east' });
    // the pool is cached now: the refusal must not come from a decision on the cached state alone
    const events = await api.eventCount();
    const west = await allocate('west', 'w1:eth0', { pools: ['east-only'] }).expect(409);
    expect(west.body.code).toBe('NO_ELIGIBLE_POOL');
    expect(west.body.message).toContain('east-only: clusterSelector "region=east" does not match the labels of cluster "west"');
    expect(await api.eventCount()).toBe(events);
  });

  it('chooses another pool for a cluster the selector leaves out, and a null selector serves every cluster', async () => {
    // every pool, in name order: east-only comes first
    expect((await allocate('east', 'e2:eth0').expect(201)).body.items[0].pool).toBe('east-only');
    expect((await allocate('west', 'w2:eth0').expect(201)).body.items[0].pool).toBe('shared');
    expect((await allocate('east', 'e3:eth0', { pools: ['shared'] }).expect(201)).body.items[0].pool).toBe('shared');
    expect((await allocate('west', 'w3:eth0', { pools: ['shared'] }).expect(201)).body.items[0].pool).toBe('shared');
    // a cluster never labelled has no labels: the default cluster too
    const plain = await api
      .http()
      .post('/v1/allocations')
      .send(allocation('d1:eth0', { pools: ['east-only'] }))
      .expect(409);
    expect(plain.body.message).toContain('does not match the labels of cluster "default"');
    // a StatefulSet's reservation chooses its pool by the same rules: none eligible, dynamic with the reason
    const reservation = await api.http().put('/v1/statefulsets/shop/db').send({ replicas: 2, pool: 'east-only' }).expect(200);
    expect(reservation.body).toMatchObject({ mode: 'dynamic', range: null });
    expect(reservation.body.reason).toContain('clusterSelector "region=east" does not match the labels of cluster "default"');
    expect((await api.http().put('/v1/statefulsets/shop/db').send({ replicas: 2 }).expect(200)).body.pool).toBe('shared');
  });

  it("answers a node's pools per cluster, leaving out and explaining the pool its cluster may not use", async () => {
    const west = await api.http().get('/v1/clusters/west/nodes/worker-1/pools?explain=true').expect(200);
    expect(west.body.items.map((p: { name: string }) => p.name)).toEqual(['shared']);
    expect(west.body.excluded).toEqual([
      { pool: 'east-only', reason: 'clusterSelector "region=east" does not match the labels of cluster "west"' },
    ]);
    const east = await api.http().get('/v1/clusters/east/nodes/worker-1/pools').expect(200);
    expect(east.body.items.map((p: { name: string }) => p.name)).toEqual(['east-only', 'shared']);
    const one = await api.http().get('/v1/clusters/west/nodes/worker-1/pools?explain=true&pool=east-only').expect(200);
    expect(one.body.excluded[0].reason).toContain('clusterSelector "region=east" does not match the labels of cluster "west"');
  });

  it("gives a claim's addresses to a reference of another cluster only where their pools' clusterSelector allows", async () => {
    const source = await allocate('east', 'src:eth0', { pools: ['east-only'], claim: 'vm-1' }).expect(201);
    expect(source.body.items[0]).toMatchObject({ claim: 'vm-1', pool: 'east-only' });
    const events = await api.eventCount();
    const target = await allocate('west', 'dst:eth0', { pools: ['east-only'], claim: 'vm-1' }).expect(409);
    expect(target.body).toMatchObject({ code: 'NO_ELIGIBLE_POOL' });
    expect(target.body.message).toContain('east-only: clusterSelector "region=east" does not match the labels of cluster "west"');
    expect(await api.eventCount()).toBe(events);
  });

  it("takes a cluster's new labels at its next allocation, and keeps what was allocated before", async () => {
    await api
      .http()
      .put('/v1/clusters/west')
      .send({ labels: { region: 'east' } })
      .expect(200);
    expect((await allocate('west', 'w4:eth0', { pools: ['east-only'] }).expect(201)).body.items[0].pool).toBe('east-only');
    const target = await allocate('west', 'dst:eth0', { pools: ['east-only'], claim: 'vm-1' }).expect(200);
    expect(target.body.items[0]).toMatchObject({ handle: 'dst:eth0', claim: 'vm-1', pool: 'east-only' });
    await api
      .http()
      .put('/v1/clusters/east')
      .send({ labels: { region: 'north' } })
      .expect(200);
    await allocate('east', 'e4:eth0', { pools: ['east-only'] }).expect(409);
    // not revoked: east's earlier address stays held, and a retry of its handle answers it
    const held = await api.http().get('/v1/clusters/east/allocations/e1:eth0').expect(200);
    expect(held.body.items[0].pool).toBe('east-only');
    expect((await allocate('east', 'e1:eth0', { pools: ['east-only'] }).expect(200)).body.items).toEqual(held.body.items);
  });

  it('changes the selector by PATCH (null: every cluster again)', async () => {
    const before = new Date().toISOString();
    const patched = await api.http().patch('/v1/pools/east-only').send({ clusterSelector: 'region in (north, south)' }).expect(200);
    expect(patched.body.clusterSelector).toBe('region in (north,south)');
    expect((await allocate('east', 'e5:eth0', { pools: ['east-only'] }).expect(201)).body.items[0].pool).toBe('east-only');
    await allocate('west', 'w5:eth0', { pools: ['east-only'] }).expect(409);
    expect((await api.http().patch('/v1/pools/east-only').send({ clusterSelector: null }).expect(200)).body.clusterSelector).toBeNull();
    expect((await allocate('west', 'w5:eth0', { pools: ['east-only'] }).expect(201)).body.items[0].pool).toBe('east-only');
    await api.http().patch('/v1/pools/east-only').send({ clusterSelector: 'region=north' }).expect(200);
    // the pool as it was: replayed from its events
    expect((await api.http().get(`/v1/pools/east-only?at=${before}`).expect(200)).body.clusterSelector).toBe('region=east');
  });

  it.each([
    ['a malformed selector', 'region in (east'],
    ['a bad label key', 'bad key=east'],
    ['not a string', 7],
  ])('refuses %s with 400, changing nothing', async (_, clusterSelector) => {
    const events = await api.eventCount();
    const created = await api.http().post('/v1/pools').send({ name: 'bad', cidr: '10.93.0.0/24', clusterSelector }).expect(400);
    expect(created.body.code).toBeDefined();
    await api.http().get('/v1/pools/bad').expect(404);
    await api.http().patch('/v1/pools/east-only').send({ clusterSelector }).expect(400);
    expect((await api.http().get('/v1/pools/east-only').expect(200)).body.clusterSelector).toBe('region=north');
    expect(await api.eventCount()).toBe(events);
  });

  it("applies an IPPool object's spec.clusterSelector, and its removal (every cluster)", async () => {
    let rv = 100;
    const uid = randomUUID();
    const apply = async (type: 'ADDED' | 'MODIFIED', spec: Record<string, unknown>) => {
      const object = { metadata: { name: 'k8s-east', uid, resourceVersion: String(++rv) }, spec };
      await bus.publisher.change({ kind: 'ippool', type, object });
      await bus.publisher.flush();
      await bus.idle();
    };
    await apply('ADDED', { cidr: '10.94.0.0/24', clusterSelector: 'region in (east)' });
    expect((await api.http().get('/v1/pools/k8s-east').expect(200)).body.clusterSelector).toBe('region in (east)');
    // west is labelled region=east by now, east region=north
    expect((await allocate('east', 'e6:eth0', { pools: ['k8s-east'] }).expect(409)).body.code).toBe('NO_ELIGIBLE_POOL');
    await apply('MODIFIED', { cidr: '10.94.0.0/24' });
    expect((await api.http().get('/v1/pools/k8s-east').expect(200)).body.clusterSelector).toBeNull();
    expect((await allocate('east', 'e6:eth0', { pools: ['k8s-east'] }).expect(201)).body.items[0].pool).toBe('k8s-east');
  });

  it('rebuilds the column from the log', async () => {
    await expectReplayVerifyClean(api.db.url);
  });
});
