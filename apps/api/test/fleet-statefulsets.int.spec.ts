import { expectReplayVerifyClean } from '../../../test/support/replay-verify';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/**
 * API.md "Clusters: one ledger for a fleet", per cluster: two clusters may each have a StatefulSet
 * `shop/db`, each with its own reservation, its pods given their own cluster's ordinal addresses.
 */
describe('fleet: StatefulSet reservations per cluster', () => {
  let api: TestApi;
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  const root = as('root');
  const east = as('east');
  /** the address `offset` after an IPv4 address */
  const plus = (ip: string, offset: number) => {
    const n = ip.split('.').reduce((sum, part) => sum * 256 + Number(part), 0) + offset;
    return [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');
  };
  /** dual stack: two families are decided on the start read (the reservation it finds), never on cached state alone */
  const pod = (cluster: string, name: string) =>
    api
      .http()
      .post(`/v1/clusters/${cluster}/allocations`)
      .set(root)
      .send({ handle: `${name}:eth0`, node: 'worker-1', namespace: 'shop', pod: name, pools: ['sts', 'sts6'], families: [4, 6] });

  beforeAll(async () => {
    api = await startTestApi('fleet_statefulsets', {
      env: { IPAM_TOKENS: 'root:admin:ops,east:admin:east-ops:east' },
    });
    await api.http().post('/v1/pools').set(root).send({ name: 'sts', cidr: '10.91.0.0/24' }).expect(201);
    await api.http().post('/v1/pools').set(root).send({ name: 'sts6', cidr: 'fd00:91::/120' }).expect(201);
  });
  afterAll(() => api.close());

  it("keeps the same StatefulSet in two clusters apart: each its own range, its pods their own cluster's ordinal addresses", async () => {
    const plain = await api.http().put('/v1/statefulsets/shop/db').set(root).send({ replicas: 3, pool: 'sts' }).expect(200);
    const inEast = await api.http().put('/v1/clusters/east/statefulsets/shop/db').set(root).send({ replicas: 2, pool: 'sts' }).expect(200);
    expect(plain.body).toMatchObject({ cluster: 'default', namespace: 'shop', name: 'db', replicas: 3, mode: 'continuous', version: 1 });
    expect(inEast.body).toMatchObject({ cluster: 'east', namespace: 'shop', name: 'db', replicas: 2, mode: 'continuous', version: 1 });
    // the second range lies after the first: two reservations, not one resized
    expect(inEast.body.range.start).toBe(plus(plain.body.range.end, 1));
    expect((await api.http().get('/v1/clusters/default/statefulsets/shop/db').set(root).expect(200)).body).toEqual(plain.body);
    expect((await api.http().get('/v1/clusters/east/statefulsets/shop/db').set(root).expect(200)).body).toEqual(inEast.body);

    // the default cluster's stream keeps its id and its events no cluster; east's carry it
    const { rows } = await api.db.pool.query<{ stream_id: string; type: string; cluster: string | null }>(
      `SELECT stream_id, type, data ->> 'cluster' AS cluster FROM events
        WHERE type IN ('StatefulSetReconciled', 'RangeReserved') ORDER BY position`,
    );
    expect(rows.map((r) => [r.stream_id, r.type, r.cluster])).toEqual([
      ['pool-sts', 'RangeReserved', null],
      ['statefulset-shop/db', 'StatefulSetReconciled', null],
      ['pool-sts', 'RangeReserved', 'east'],
      ['statefulset-east/shop/db', 'StatefulSetReconciled', 'east'],
    ]);

    // the pool shows both ranges, each with its cluster, now and as its log folds them at an instant
    const ranges = [
      { cluster: 'default', namespace: 'shop', name: 'db', ...plain.body.range },
      { cluster: 'east', namespace: 'shop', name: 'db', ...inEast.body.range },
    ];
    expect((await api.http().get('/v1/pools/sts').set(root).expect(200)).body.statefulSetRanges).toEqual(ranges);
    const at = new Date().toISOString();
    expect((await api.http().get(`/v1/pools/sts?at=${at}`).set(root).expect(200)).body.statefulSetRanges).toEqual(ranges);

    // east's pod first: were it given the default cluster's ordinal address, it would get it
    const eastPod = await pod('east', 'db-1').expect(201);
    const defaultPod = await pod('default', 'db-1').expect(201);
    expect(defaultPod.body.items[0]).toMatchObject({ cluster: 'default', ip: plus(plain.body.range.start, 1) });
    expect(eastPod.body.items[0]).toMatchObject({ cluster: 'east', ip: plus(inEast.body.range.start, 1) });
  });

  it("deletes one cluster's StatefulSet, with its pods' addresses, and leaves the other cluster's", async () => {
    await api.http().delete('/v1/clusters/east/statefulsets/shop/db').set(root).expect(204);
    expect((await api.http().get('/v1/clusters/east/statefulsets/shop/db').set(root).expect(404)).body.code).toBe('STATEFULSET_NOT_FOUND');
    await api.http().get('/v1/clusters/east/allocations/db-1:eth0').set(root).expect(404);
    expect((await api.http().get('/v1/statefulsets/shop/db').set(root).expect(200)).body).toMatchObject({
      cluster: 'default',
      replicas: 3,
    });
    expect((await api.http().get('/v1/allocations/db-1:eth0').set(root).expect(200)).body.items[0].cluster).toBe('default');
    // east's range went back: a new reservation there takes it again
    const again = await api.http().put('/v1/clusters/east/statefulsets/shop/db').set(root).send({ replicas: 2, pool: 'sts' }).expect(200);
    const plain = (await api.http().get('/v1/statefulsets/shop/db').set(root).expect(200)).body;
    expect(again.body.range.start).toBe(plus(plain.range.end, 1));
  });

  it("acts in a cluster token's own cluster unprefixed, and refuses it another cluster's StatefulSet (403 CLUSTER_FORBIDDEN)", async () => {
    expect((await api.http().get('/v1/statefulsets/shop/db').set(east).expect(200)).body.cluster).toBe('east');
    for (const [method, path] of [
      ['get', '/v1/clusters/default/statefulsets/shop/db'],
      ['put', '/v1/clusters/default/statefulsets/shop/db'],
      ['delete', '/v1/clusters/default/statefulsets/shop/db'],
      ['put', '/v1/clusters/west/statefulsets/shop/db'],
    ] as const) {
      const request = method === 'put' ? api.http().put(path).send({ replicas: 1, pool: 'sts' }) : api.http()[method](path);
      const res = await request.set(east);
      expect([path, res.status, res.body.code]).toEqual([path, 403, 'CLUSTER_FORBIDDEN']);
    }
    expect((await api.http().get('/v1/statefulsets/shop/db').set(root).expect(200)).body).toMatchObject({
      cluster: 'default',
      replicas: 3,
    });
    await api.http().get('/v1/clusters/west').set(root).expect(404);
  });

  it('refuses to delete a cluster while it has a StatefulSet reservation (409 CLUSTER_IN_USE), also a dynamic one', async () => {
    await api.http().put('/v1/clusters/north/statefulsets/shop/cache').set(root).send({ replicas: 0 }).expect(200);
    const res = await api.http().delete('/v1/clusters/north').set(root).expect(409);
    expect(res.body).toMatchObject({ code: 'CLUSTER_IN_USE', message: expect.stringMatching(/still has StatefulSet reservations;/) });
    await api.http().delete('/v1/clusters/north/statefulsets/shop/cache').set(root).expect(204);
    await api.http().delete('/v1/clusters/north').set(root).expect(204);
  });

  it('lists both paths of every StatefulSet and ip-set route in the OpenAPI document', async () => {
    const paths = (await api.http().get('/docs-json').expect(200)).body.paths as Record<string, unknown>;
    for (const path of [
      '/v1/clusters/{cluster}/statefulsets/{namespace}/{name}',
      '/v1/clusters/{cluster}/ipsets',
      '/v1/clusters/{cluster}/ipsets/{namespace}/{kind}/{name}',
    ])
      expect(paths[path]).toBeDefined();
  });

  it('rebuilds every read model of both clusters from the log exactly as it is live (replay --verify)', async () => {
    await expectReplayVerifyClean(api.db.url);
  });
});
