import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { eventually } from '../../../test/support/eventually';
import { startFakeKubeApi, type FakeKubeApi } from '../../../test/support/fake-kube-api';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';
import { startWatcherProcess, type WatcherProcess } from '../../../test/support/watcher-process';
import { ipSetPodMetadata, replicaSetObject } from '../../../test/support/workload-objects';

/**
 * Fixed addresses for a Deployment (pod template annotation ipam.ipledger.io/ip-set), end to end:
 * the Deployment, its ReplicaSets and pods in the fake Kubernetes API, the watcher and the API as
 * processes, and each pod's allocation asked for as the CNI plugin asks (owner pod, with its uid).
 */
describe('ip-sets of Deployments and ReplicaSets', () => {
  const NAMESPACE = 'shop';
  let dir: string;
  let kube: FakeKubeApi;
  let bus: TestBus;
  let db: TestDatabase;
  let api: ApiProcess;
  let watcher: WatcherProcess;

  const objectStatus = async (kind: string, key: string) =>
    (await db.pool.query<{ status: string }>('SELECT status FROM kubernetes_objects WHERE kind = $1 AND key = $2', [kind, key])).rows[0]
      ?.status;

  const replicaSet = (name: string, deployment?: string) => kube.upsert('replicaset', replicaSetObject(NAMESPACE, name, deployment));

  /** a pod, once the API has recorded it; of ReplicaSet `owner` with its template's ip-set (`hash`: a Deployment's pod-template-hash) */
  const pod = async (name: string, of?: { owner: string; ipSet: string; hash?: string }) => {
    const object = kube.upsert('pod', {
      metadata: { name, namespace: NAMESPACE, ...(of && ipSetPodMetadata(of)) },
      spec: { nodeName: 'node-1' },
    });
    await eventually(
      () => objectStatus('pod', `${NAMESPACE}/${name}`),
      (status) => status === 'seen',
      20_000,
    );
    return { name, uid: object.metadata.uid };
  };

  /** the pod's address, asked for as the CNI plugin asks (ADD): its handle is the pod's name */
  const add = (target: { name: string; uid: string }) =>
    call(api.base, 'POST', '/v1/allocations', {
      handle: `${target.name}:eth0`,
      node: 'node-1',
      namespace: NAMESPACE,
      pod: target.name,
      podUid: target.uid,
    });
  const ipOf = async (target: { name: string; uid: string }) => {
    const res = await add(target);
    expect(res.status).toBe(201);
    return res.body.items[0].ip as string;
  };
  /** CNI DEL */
  const del = async (target: { name: string }) =>
    expect((await call(api.base, 'DELETE', `/v1/allocations/${target.name}:eth0`)).status).toBe(204);

  beforeAll(async () => {
    execFileSync(process.execPath, ['scripts/build.js', '--if-changed'], { cwd: join(__dirname, '../../..'), stdio: 'inherit' });
    dir = mkdtempSync(join(tmpdir(), 'ip-sets-'));
    kube = await startFakeKubeApi({ bookmarkIntervalMs: 500 });
    bus = await createTestBus('ip_sets');
    db = await createTestDatabase('ip_sets');
    api = await startApiProcess(db.url, { from: 'dist', env: { ...bus.env, IPAM_POD_WAIT_MS: '3000' } });
    expect((await call(api.base, 'POST', '/v1/pools', { name: 'apps', cidr: '10.70.0.0/24' })).status).toBe(201);
    kube.upsert('node', { metadata: { name: 'node-1' } });
    kube.upsert('namespace', { metadata: { name: NAMESPACE } });
    watcher = await startWatcherProcess({
      ...bus.env,
      KUBECONFIG: kube.writeKubeconfig(dir),
      IPAM_WATCHER_TIMEOUT_SECONDS: '5',
      IPAM_WATCHER_RESYNC_SECONDS: '0',
    });
    await eventually(
      () => objectStatus('namespace', NAMESPACE),
      (status) => status === 'seen',
      20_000,
    );
  }, 120_000);

  afterAll(async () => {
    await watcher?.stop();
    await api?.stop();
    await bus?.close();
    await kube?.close();
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // one Deployment's life, in order: each step starts where the one before left it
  const old: Array<{ name: string; uid: string }> = [];
  const ofNew = { owner: 'web-bbb', ipSet: '3', hash: 'bbb' };
  let first: string[];
  let set: { status: number; body: any };
  let surge: { name: string; uid: string };

  it("a Deployment of 3 with ip-set 3: its first pod reserves the set in one pool, and its pods take the set's addresses", async () => {
    // an address below the set, held by a pod of no workload, so the set does not start at the pool's first address
    const stray = await ipOf(await pod('stray'));
    kube.upsert('deployment', { metadata: { name: 'web', namespace: NAMESPACE } });
    replicaSet('web-aaa', 'web');
    for (const name of ['web-aaa-1', 'web-aaa-2', 'web-aaa-3']) old.push(await pod(name, { owner: 'web-aaa', ipSet: '3', hash: 'aaa' }));
    first = await Promise.all(old.map(ipOf));
    expect(new Set(first).size).toBe(3);
    set = await call(api.base, 'GET', `/v1/ipsets/${NAMESPACE}/Deployment/web`);
    expect(set).toMatchObject({
      status: 200,
      body: { namespace: NAMESPACE, kind: 'Deployment', name: 'web', pool: 'apps', size: 3, held: 3 },
    });
    expect([...first].sort()).toEqual(['10.70.0.2', '10.70.0.3', '10.70.0.4']);
    expect(set.body.range).toEqual({ start: '10.70.0.2', end: '10.70.0.4' });
    expect(stray).toBe('10.70.0.1');
    expect((await call(api.base, 'GET', '/v1/ipsets')).body).toEqual({ items: [set.body], continue: null });
    // the reservation is in the audit history of each of its addresses, as the workload's
    const history = await call(api.base, 'GET', '/v1/ips/10.70.0.3/history');
    expect(history.body.items).toEqual([
      expect.objectContaining({
        type: 'RangeReserved',
        pool: 'apps',
        namespace: NAMESPACE,
        statefulSet: null,
        ipSet: { kind: 'Deployment', name: 'web' },
      }),
      expect.objectContaining({ type: 'IpAllocated', namespace: NAMESPACE, ipSet: null }),
    ]);
  });

  it("a rollout's surge pod beyond the set gets 503 IP_SET_FULL until an old pod's DEL, and the new ReplicaSet keeps the same three addresses", async () => {
    replicaSet('web-bbb', 'web');
    surge = await pod('web-bbb-1', ofNew);
    const refused = await add(surge);
    expect(refused).toMatchObject({ status: 503, body: { code: 'IP_SET_FULL' } });
    expect(refused.body.message).toContain('Deployment shop/web');
    await del(old[0]);
    expect(await ipOf(surge)).toBe(first[0]);
    await del(old[1]);
    await del(old[2]);
    const rest = [await pod('web-bbb-2', ofNew), await pod('web-bbb-3', ofNew)];
    const second = [first[0], ...(await Promise.all(rest.map(ipOf)))];
    expect([...second].sort()).toEqual([...first].sort());
    // the old ReplicaSet goes, its Deployment stays: so does the set
    kube.remove('replicaset', `${NAMESPACE}/web-aaa`);
    await eventually(
      () => objectStatus('replicaset', `${NAMESPACE}/web-aaa`),
      (status) => status === 'deleted',
      20_000,
    );
    expect((await call(api.base, 'GET', `/v1/ipsets/${NAMESPACE}/Deployment/web`)).body).toMatchObject({ range: set.body.range, held: 3 });
  });

  it('deleting the Deployment frees the set: once its pods are gone, any pod may take its addresses', async () => {
    kube.remove('deployment', `${NAMESPACE}/web`);
    kube.remove('replicaset', `${NAMESPACE}/web-bbb`);
    await eventually(
      () => call(api.base, 'GET', `/v1/ipsets/${NAMESPACE}/Deployment/web`),
      (res) => res.status === 404,
      20_000,
    );
    for (const name of ['web-bbb-1', 'web-bbb-2', 'web-bbb-3']) await del({ name });
    const others = [];
    for (const name of ['other-1', 'other-2', 'other-3']) others.push(await ipOf(await pod(name)));
    expect(others.sort()).toEqual([...first].sort());
  });

  it("a bare ReplicaSet's pods share its own set, released with it", async () => {
    replicaSet('batch');
    const ip = await ipOf(await pod('batch-1', { owner: 'batch', ipSet: '10.70.0.100-10.70.0.101' }));
    expect(ip).toBe('10.70.0.100');
    expect((await call(api.base, 'GET', `/v1/ipsets/${NAMESPACE}/ReplicaSet/batch`)).body).toMatchObject({
      range: { start: '10.70.0.100', end: '10.70.0.101' },
      held: 1,
    });
    kube.remove('replicaset', `${NAMESPACE}/batch`);
    await eventually(
      () => call(api.base, 'GET', `/v1/ipsets/${NAMESPACE}/ReplicaSet/batch`),
      (res) => res.status === 404,
      20_000,
    );
  });

  it('a set larger than any free run is refused for that pod with 409 IP_SET_NOT_RESERVED, and nothing is appended', async () => {
    replicaSet('huge');
    const target = await pod('huge-1', { owner: 'huge', ipSet: '300' });
    const before = (await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0].n;
    const refused = await add(target);
    expect(refused).toMatchObject({ status: 409, body: { code: 'IP_SET_NOT_RESERVED' } });
    expect(refused.body.message).toContain('ReplicaSet shop/huge');
    expect((await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0].n).toBe(before);
    expect((await call(api.base, 'GET', '/v1/ipsets?namespace=shop')).body.items).toEqual([]);
  });
});
