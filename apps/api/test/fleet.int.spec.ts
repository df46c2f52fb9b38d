import { expectReplayVerifyClean } from '../../../test/support/replay-verify';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/**
 * API.md "Clusters: one ledger for a fleet": nodes and handles per cluster, every such route also
 * under /v1/clusters/{cluster}, credentials that act in their own cluster only.
 */
describe('fleet: nodes and allocations per cluster', () => {
  let api: TestApi;
  const as = (token: string) => ({ Authorization: `Bearer ${token}` });
  const root = as('root');
  const body = (handle: string, extra: Record<string, unknown> = {}) => ({
    handle,
    node: 'worker-1',
    namespace: 'shop',
    pod: 'web-0',
    pools: ['shared'],
    ...extra,
  });

  beforeAll(async () => {
    api = await startTestApi('fleet', {
      env: {
        IPAM_TOKENS: 'root:admin:ops,reader:reader:ro,east:admin:east-ops:east,eastcni:allocator:east-cni:east:worker-1',
      },
    });
    await api.http().post('/v1/pools').set(root).send({ name: 'shared', cidr: '10.90.0.0/24' }).expect(201);
  });
  afterAll(() => api.close());

  it('keeps the same node name in two clusters apart, and a write in an unknown cluster creates it', async () => {
    await api.http().get('/v1/clusters/east').set(root).expect(404);
    await api
      .http()
      .put('/v1/nodes/worker-1')
      .set(root)
      .send({ labels: { zone: 'a' } })
      .expect(200);
    const east = await api
      .http()
      .put('/v1/clusters/east/nodes/worker-1')
      .set(root)
      .send({ labels: { zone: 'b' } })
      .expect(200);
    expect(east.body).toMatchObject({ name: 'worker-1', cluster: 'east', labels: { zone: 'b' }, version: 1 });
    expect((await api.http().get('/v1/clusters/east').set(root).expect(200)).body).toMatchObject({ name: 'east', labels: {} });
    // the default cluster's unprefixed route: its own node, untouched
    const plain = await api.http().get('/v1/nodes/worker-1').set(root).expect(200);
    expect(plain.body).toMatchObject({ name: 'worker-1', cluster: 'default', labels: { zone: 'a' }, version: 1 });
    expect((await api.http().get('/v1/clusters/default/nodes/worker-1').set(root).expect(200)).body).toEqual(plain.body);
    // the default cluster's stream keeps its id; east's carries the cluster
    const { rows } = await api.db.pool.query(`SELECT stream_id FROM events WHERE type = 'NodeLabelsSet' ORDER BY position`);
    expect(rows.map((r: { stream_id: string }) => r.stream_id)).toEqual(['node-worker-1', 'node-east/worker-1']);
  });

  it('answers 404 CLUSTER_NOT_FOUND for a read in a cluster that does not exist', async () => {
    const res = await api.http().get('/v1/clusters/west/nodes/worker-1').set(root).expect(404);
    expect(res.body.code).toBe('CLUSTER_NOT_FOUND');
    expect((await api.http().get('/v1/clusters/west/allocations/abc:eth0').set(root).expect(404)).body.code).toBe('CLUSTER_NOT_FOUND');
  });

  it('holds the same handle in two clusters at once, each its own address, and releases only one', async () => {
    const plain = await api.http().post('/v1/allocations').set(root).send(body('abc:eth0')).expect(201);
    const east = await api.http().post('/v1/clusters/east/allocations').set(root).send(body('abc:eth0')).expect(201);
    expect(plain.body.items[0]).toMatchObject({ handle: 'abc:eth0', cluster: 'default' });
    expect(east.body.items[0]).toMatchObject({ handle: 'abc:eth0', cluster: 'east' });
    expect(east.body.items[0].ip).not.toBe(plain.body.items[0].ip);
    // a retry in either cluster returns that cluster's address
    const again = await api
      .http()
      .post('/v1/allocations')
      .set(root)
      .send(body('abc:eth0', { cluster: 'east' }))
      .expect(200);
    expect(again.body.items).toEqual(east.body.items);
    expect((await api.http().get('/v1/clusters/east/allocations/abc:eth0').set(root).expect(200)).body.items).toEqual(east.body.items);

    await api.http().delete('/v1/clusters/east/allocations/abc:eth0').set(root).expect(204);
    await api.http().get('/v1/clusters/east/allocations/abc:eth0').set(root).expect(404);
    const still = await api.http().get('/v1/allocations/abc:eth0').set(root).expect(200);
    expect(still.body.items).toEqual(plain.body.items);
    // the released address may go to another holder; the default cluster's stays held
    await api.http().post('/v1/clusters/east/allocations').set(root).send(body('abc:eth0')).expect(201);
  });

  it('lists one cluster with ?cluster= or the prefix, and every cluster for a fleet-wide token', async () => {
    const all = await api.http().get('/v1/allocations').set(root).expect(200);
    expect(all.body.items.map((a: { cluster: string }) => a.cluster)).toEqual(['default', 'east']);
    const east = await api.http().get('/v1/allocations?cluster=east').set(root).expect(200);
    expect(east.body.items.map((a: { cluster: string }) => a.cluster)).toEqual(['east']);
    expect((await api.http().get('/v1/clusters/east/allocations').set(root).expect(200)).body.items).toEqual(east.body.items);
    const paged = await api.http().get('/v1/allocations?limit=1').set(root).expect(200);
    const next = await api.http().get(`/v1/allocations?limit=1&continue=${paged.body.continue}`).set(root).expect(200);
    expect([...paged.body.items, ...next.body.items]).toEqual(all.body.items);
  });

  it("acts in a cluster token's own cluster unprefixed, and refuses it every other cluster", async () => {
    const mine = await api.http().get('/v1/allocations').set(as('east')).expect(200);
    expect(mine.body.items.map((a: { cluster: string }) => a.cluster)).toEqual(['east']);
    expect((await api.http().get('/v1/nodes/worker-1').set(as('east')).expect(200)).body.cluster).toBe('east');
    const before = await api.eventCount();
    const refusals = [
      await api.http().get('/v1/clusters/default/nodes/worker-1').set(as('east')),
      await api.http().put('/v1/clusters/default/nodes/worker-9').set(as('east')).send({ labels: {} }),
      await api.http().get('/v1/allocations?cluster=default').set(as('east')),
      await api
        .http()
        .post('/v1/allocations')
        .set(as('eastcni'))
        .send(body('x:eth0', { cluster: 'default' })),
      await api.http().post('/v1/clusters/default/allocations').set(as('eastcni')).send(body('x:eth0')),
      await api.http().delete('/v1/clusters/default/allocations/abc:eth0').set(as('eastcni')),
      await api.http().post('/v1/pools').set(as('east')).send({ name: 'mine', cidr: '10.91.0.0/24' }),
      await api.http().patch('/v1/pools/shared').set(as('east')).send({ disabled: true }),
      await api.http().delete('/v1/pools/shared').set(as('eastcni')),
    ];
    expect(refusals.map((r) => [r.status, r.body.code])).toEqual(refusals.map(() => [403, 'CLUSTER_FORBIDDEN']));
    expect(await api.eventCount()).toBe(before);
    expect((await api.http().get('/v1/allocations/abc:eth0').set(root).expect(200)).body.items).toHaveLength(1);
    // it may read pools
    await api.http().get('/v1/pools/shared').set(as('east')).expect(200);
    // and allocate in its own cluster, unprefixed
    const own = await api.http().post('/v1/allocations').set(as('east')).send(body('y:eth0')).expect(201);
    expect(own.body.items[0].cluster).toBe('east');
  });

  it("checks each cluster apart: its own findings only, and a cluster's token its own cluster only", async () => {
    // in each cluster the pod shop/api-0 holds two IPv4 addresses: the same handles, pod and node, one finding each
    const twice = async (prefix: string) => {
      const ips: string[] = [];
      for (const handle of ['two:eth0', 'two:eth1'])
        ips.push(
          (
            await api
              .http()
              .post(`${prefix}/allocations`)
              .set(root)
              .send(body(handle, { pod: 'api-0', owner: 'pod' }))
              .expect(201)
          ).body.items[0].ip,
        );
      return ips;
    };
    const found = { default: await twice('/v1'), east: await twice('/v1/clusters/east') };
    const check = async (path: string, token = root) => {
      const report = (await api.http().get(path).set(token).expect(200)).body;
      return { ...report, checkedAt: expect.any(String) };
    };
    const expected = (cluster: 'default' | 'east') => ({
      cluster,
      checkedAt: expect.any(String),
      podSync: null,
      problems: [
        { cluster, kind: 'no-complete-pod-sync', message: expect.any(String), evidence: {} },
        {
          cluster,
          kind: 'pod-holds-several',
          message: expect.stringContaining('pod shop/api-0 holds 2 IPv4 addresses'),
          evidence: expect.objectContaining({ held: found[cluster].map((ip) => expect.objectContaining({ ip })) }),
        },
      ],
    });
    expect(await check('/v1/check')).toEqual(expected('default'));
    expect(await check('/v1/clusters/default/check', as('reader'))).toEqual(expected('default'));
    expect(await check('/v1/clusters/east/check')).toEqual(expected('east'));
    // a cluster's token: its own cluster unprefixed, never another's
    expect(await check('/v1/check', as('east'))).toEqual(expected('east'));
    expect(await check('/v1/clusters/east/check', as('east'))).toEqual(expected('east'));
    const refused = await api.http().get('/v1/clusters/default/check').set(as('east')).expect(403);
    expect(refused.body.code).toBe('CLUSTER_FORBIDDEN');
    expect((await api.http().get('/v1/clusters/west/check').set(root).expect(404)).body.code).toBe('CLUSTER_NOT_FOUND');
  });

  it("lets a cluster's credential change its own cluster only", async () => {
    const east = as('east');
    await api
      .http()
      .put('/v1/clusters/east')
      .set(east)
      .send({ labels: { region: 'eu' } })
      .expect(200);
    expect((await api.http().get('/v1/clusters/east').set(east).expect(200)).body.labels).toEqual({ region: 'eu' });
    for (const [method, path] of [
      ['put', '/v1/clusters/west'],
      ['delete', '/v1/clusters/west'],
    ] as const) {
      const request = method === 'put' ? api.http().put(path).send({ labels: {} }) : api.http().delete(path);
      const res = await request.set(east);
      expect([path, res.status, res.body.code]).toEqual([path, 403, 'CLUSTER_FORBIDDEN']);
    }
    await api.http().get('/v1/clusters/west').set(root).expect(404);
  });

  it('refuses to delete a cluster while it has nodes or allocations (409 CLUSTER_IN_USE), and deletes it once empty', async () => {
    await api.http().put('/v1/clusters/north/nodes/worker-1').set(root).send({ labels: {} }).expect(200);
    await api.http().post('/v1/clusters/north/allocations').set(root).send(body('n:eth0')).expect(201);
    const inUse = async (what: RegExp) => {
      const res = await api.http().delete('/v1/clusters/north').set(root).expect(409);
      expect(res.body).toMatchObject({ code: 'CLUSTER_IN_USE', message: expect.stringMatching(what) });
    };
    await inUse(/nodes and allocations/);
    await api.http().delete('/v1/clusters/north/nodes/worker-1').set(root).expect(204);
    await inUse(/still has allocations;/);
    await api.http().delete('/v1/clusters/north/allocations/n:eth0').set(root).expect(204);
    await api.http().delete('/v1/clusters/north').set(root).expect(204);
    await api.http().get('/v1/clusters/north').set(root).expect(404);
    // the same node name in another cluster never kept it in use
    expect((await api.http().get('/v1/nodes/worker-1').set(root).expect(200)).body.cluster).toBe('default');
  });

  it('lists both paths of every node, allocation and check route in the OpenAPI document', async () => {
    type Operation = { parameters?: Array<{ name: string; in: string; required: boolean }> };
    const paths = (await api.http().get('/docs-json').expect(200)).body.paths as Record<string, Record<string, Operation>>;
    for (const path of [
      '/v1/clusters/{cluster}/nodes/{name}',
      '/v1/clusters/{cluster}/nodes/{name}/pools',
      '/v1/clusters/{cluster}/allocations',
      '/v1/clusters/{cluster}/allocations/{handle}',
      '/v1/clusters/{cluster}/check',
    ]) {
      expect(paths[path]).toBeDefined();
      for (const op of Object.values(paths[path])) {
        expect(op.parameters).toContainEqual(expect.objectContaining({ name: 'cluster', in: 'path', required: true }));
      }
    }
    for (const op of Object.values(paths['/v1/allocations'])) {
      expect((op.parameters ?? []).filter((p) => p.in === 'path')).toEqual([]);
    }
  });

  it("moves a claim's address between clusters: the target cluster's reference shares it, the source's release leaves it held", async () => {
    const post = (cluster: string, handle: string) =>
      api
        .http()
        .post(`/v1/clusters/${cluster}/allocations`)
        .set(root)
        .send(body(handle, { pod: `virt-launcher-${handle.split(':')[0]}`, claim: 'vm-move' }));
    const source = await post('south', 'src:eth0').expect(201);
    const target = await post('north', 'dst:eth0').expect(200);
    expect(target.body.items.map((i: { ip: string }) => i.ip)).toEqual(source.body.items.map((i: { ip: string }) => i.ip));
    const claim = () => api.http().get('/v1/claims/vm-move').set(root).expect(200);
    expect((await claim()).body.references.map((r: { cluster: string; handle: string }) => [r.cluster, r.handle])).toEqual([
      ['south', 'src:eth0'],
      ['north', 'dst:eth0'],
    ]);
    // the source cluster's release of its reference (the unprefixed route is the default cluster's: no such reference there)
    await api.http().delete('/v1/allocations/src:eth0').set(root).expect(204);
    expect((await claim()).body.references).toHaveLength(2);
    await api.http().delete('/v1/clusters/south/allocations/src:eth0').set(root).expect(204);
    const after = (await claim()).body;
    expect(after.references.map((r: { cluster: string }) => r.cluster)).toEqual(['north']);
    expect(after.items.map((i: { ip: string }) => i.ip)).toEqual(source.body.items.map((i: { ip: string }) => i.ip));
  });

  it('takes one handle in two clusters as two references of a claim (a migration keeping its attachment name), each released alone', async () => {
    const post = (cluster: string) =>
      api
        .http()
        .post(`/v1/clusters/${cluster}/allocations`)
        .set(root)
        .send(body('vm-same:eth0', { pod: 'virt-launcher-vm-same', claim: 'vm-same' }));
    const source = await post('up').expect(201);
    const target = await post('down').expect(200);
    const ips = source.body.items.map((i: { ip: string }) => i.ip);
    expect(target.body.items.map((i: { ip: string }) => i.ip)).toEqual(ips);
    const claim = () => api.http().get('/v1/claims/vm-same').set(root).expect(200);
    const references = async () =>
      (await claim()).body.references.map((r: { cluster: string; handle: string }) => `${r.cluster} ${r.handle}`);
    expect(await references()).toEqual(['up vm-same:eth0', 'down vm-same:eth0']);
    await api.http().delete('/v1/clusters/up/allocations/vm-same:eth0').set(root).expect(204);
    expect(await references()).toEqual(['down vm-same:eth0']);
    expect((await claim()).body.items.map((i: { ip: string }) => i.ip)).toEqual(ips);
  });

  it("gives the same node name in two clusters blocks of their own, lists each under its cluster, and releases one node's only", async () => {
    await api.http().post('/v1/pools').set(root).send({ name: 'blocked', cidr: '10.92.0.0/24', blockSize: 28 }).expect(201);
    const on = (cluster: string, handle: string) =>
      api
        .http()
        .post(`/v1/clusters/${cluster}/allocations`)
        .set(root)
        .send(body(handle, { node: 'rack-1', pools: ['blocked'] }))
        .expect(201);
    const plain = (await on('default', 'b1:eth0')).body.items[0];
    const blue = (await on('blue', 'b1:eth0')).body.items[0];
    // blue's rack-1 is another node: it claims a block of its own, borrowing nothing
    expect([plain.ip, blue.ip, plain.borrowed, blue.borrowed]).toEqual(['10.92.0.1', '10.92.0.16', undefined, undefined]);
    const blocks = async (path: string) => (await api.http().get(path).set(root).expect(200)).body.items;
    const mine = { cidr: '10.92.0.0/28', pool: 'blocked', node: 'rack-1', cluster: 'default', used: 1, borrowed: 0 };
    const blues = { cidr: '10.92.0.16/28', pool: 'blocked', node: 'rack-1', cluster: 'blue', used: 1, borrowed: 0 };
    expect(await blocks('/v1/nodes/rack-1/blocks')).toEqual([mine]);
    expect(await blocks('/v1/clusters/blue/nodes/rack-1/blocks')).toEqual([blues]);
    expect(await blocks(`/v1/clusters/blue/nodes/rack-1/blocks?at=${new Date().toISOString()}`)).toEqual([blues]);
    expect(await blocks('/v1/pools/blocked/blocks')).toEqual([mine, blues]);
    // blue's node goes, its emptied block with it; the default cluster's rack-1 keeps its own
    await api.http().delete('/v1/clusters/blue/allocations/b1:eth0').set(root).expect(204);
    await api.http().put('/v1/clusters/blue/nodes/rack-1').set(root).send({ labels: {} }).expect(200);
    await api.http().delete('/v1/clusters/blue/nodes/rack-1').set(root).expect(204);
    expect(await blocks('/v1/pools/blocked/blocks')).toEqual([mine]);
  });

  it('rebuilds every read model of both clusters from the log exactly as it is live (replay --verify)', async () => {
    await expectReplayVerifyClean(api.db.url);
  });
});
