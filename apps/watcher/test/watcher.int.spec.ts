import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeKubeApi, type FakeKubeApi } from '../../../test/support/fake-kube-api';
import { startTestApi, type TestApi } from '../../../test/support/test-api';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { eventually } from '../../../test/support/eventually';
import { startWatcherProcess, type WatcherProcess } from '../../../test/support/watcher-process';

/**
 * End to end: a fake Kubernetes API server -> the watcher process -> NATS JetStream -> the API's
 * consumer -> Postgres, checked over REST. Watches end every 1-2 s and the store is re-announced at
 * each, so the leak collector sees consecutive syncs within the test.
 */
describe('watcher end to end (fake Kubernetes API, real NATS and Postgres)', () => {
  let dir: string;
  let kube: FakeKubeApi;
  let bus: TestBus;
  let api: TestApi;
  let watcher: WatcherProcess;

  const startWatcher = () =>
    startWatcherProcess({
      ...bus.env,
      KUBECONFIG: kube.writeKubeconfig(dir),
      IPAM_WATCHER_TIMEOUT_SECONDS: '2',
      IPAM_WATCHER_RESYNC_SECONDS: '0',
    });
  const get = (path: string) => api.http().get(path);
  const until = (path: string, done: (res: { status: number; body: any }) => boolean, timeoutMs = 20_000) =>
    eventually(() => get(path), done, timeoutMs, `${path} to become as expected`);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'watcher-e2e-'));
    kube = await startFakeKubeApi({ token: 'watcher-token', bookmarkIntervalMs: 500 });
    bus = await createTestBus('watcher');
    // a loaded machine may take more than the default 3 s to bring a new pod to the consumer
    api = await startTestApi('watcher_e2e', {
      env: { ...bus.env, IPAM_LEAK_GRACE_SECONDS: '0', IPAM_DEFAULT_MATCH_LABEL: 'pool-group', IPAM_POD_WAIT_MS: '20000' },
    });
    kube.upsert('node', { metadata: { name: 'worker-1', labels: { 'pool-group': 'rack-a' } } });
    kube.upsert('ippool', { metadata: { name: 'rack-a', labels: { 'pool-group': 'rack-a' } }, spec: { cidr: '10.70.0.0/24' } });
    watcher = await startWatcher();
  });
  afterAll(async () => {
    await watcher?.stop();
    await api?.close();
    await bus?.close();
    await kube?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists nodes and IPPools into node labels and pools, and reports ready', async () => {
    await until('/v1/nodes/worker-1', (res) => res.status === 200 && res.body.labels['pool-group'] === 'rack-a');
    await until('/v1/pools/rack-a', (res) => res.status === 200 && res.body.cidr === '10.70.0.0/24');
    const ready = await eventually(
      () => fetch(`${watcher.url}/readyz`).then(async (r) => ({ status: r.status, body: await r.json() })),
      (r) => r.status === 200,
    );
    expect(ready.body).toEqual({
      status: 'ready',
      checks: {
        nats: 'ok',
        node: 'synced',
        pod: 'synced',
        statefulset: 'synced',
        ippool: 'synced',
        namespace: 'synced',
        deployment: 'synced',
        replicaset: 'synced',
        virtualmachine: 'not served',
        virtualmachineinstance: 'not served',
        ipamclaim: 'not served',
      },
    });
    const pools = await get('/v1/nodes/worker-1/pools?matchLabel=pool-group').expect(200);
    expect(pools.body.items.map((p: { name: string }) => p.name)).toEqual(['rack-a']);
  });

  it('follows label changes by watch', async () => {
    kube.upsert('node', { metadata: { name: 'worker-1', labels: { 'pool-group': 'rack-a', zone: 'z2' } } });
    await until('/v1/nodes/worker-1', (res) => res.body.labels?.zone === 'z2');
  });

  it('gives a StatefulSet its range and releases it when the StatefulSet is deleted', async () => {
    kube.upsert('statefulset', {
      metadata: { name: 'db', namespace: 'apps', annotations: { 'ipam.ipledger.io/pool': 'rack-a' } },
      spec: { replicas: 4 },
    });
    const sts = await until('/v1/statefulsets/apps/db', (res) => res.status === 200);
    expect(sts.body).toMatchObject({ mode: 'continuous', range: { start: '10.70.0.1', end: '10.70.0.4' }, replicas: 4 });
    kube.upsert('statefulset', {
      metadata: { name: 'db', namespace: 'apps', annotations: { 'ipam.ipledger.io/pool': 'rack-a' } },
      spec: { replicas: 5 },
    });
    await until('/v1/statefulsets/apps/db', (res) => res.body.replicas === 5 && res.body.range?.end === '10.70.0.5');
    kube.remove('statefulset', 'apps/db');
    await until('/v1/statefulsets/apps/db', (res) => res.status === 404);
  });

  it("takes a StatefulSet without annotation from the pools of its pods' node-label value", async () => {
    kube.upsert('ippool', { metadata: { name: 'rack-b', labels: { 'pool-group': 'rack-b' } }, spec: { cidr: '10.71.0.0/24' } });
    await until('/v1/pools/rack-b', (res) => res.status === 200);
    kube.upsert('statefulset', {
      metadata: { name: 'cache', namespace: 'apps' },
      spec: { replicas: 2, template: { spec: { nodeSelector: { 'pool-group': 'rack-b' } } } },
    });
    const sts = await until('/v1/statefulsets/apps/cache', (res) => res.status === 200);
    expect(sts.body).toMatchObject({ pool: 'rack-b', mode: 'continuous', range: { start: '10.71.0.1', end: '10.71.0.2' } });
  });

  it("releases a deleted pod's address", async () => {
    const pod = kube.upsert('pod', { metadata: { name: 'web-1', namespace: 'apps' }, spec: { nodeName: 'worker-1' } });
    await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 'c-web-1', node: 'worker-1', namespace: 'apps', pod: 'web-1', podUid: pod.metadata.uid })
      .expect(201);
    kube.remove('pod', 'apps/web-1');
    await until('/v1/allocations/c-web-1', (res) => res.status === 404);
  });

  it('appends no event when the watcher is killed and started again', async () => {
    await bus.idle();
    const before = await api.eventCount();
    await watcher.kill();
    watcher = await startWatcher();
    await watcher.printed(/pod: listed \d+ objects/);
    await watcher.printed(/ippool: listed \d+ objects/);
    await bus.idle();
    expect(await api.eventCount()).toBe(before);
  });

  it('recovers from 410 Gone during a watch and goes on applying changes', async () => {
    const from = watcher.lines.length;
    // in one tick, so no bookmark can carry the watchers past the compaction first
    kube.upsert('pod', { metadata: { name: 'unrelated', namespace: 'apps' } });
    kube.compact();
    kube.breakWatches();
    kube.upsert('node', { metadata: { name: 'worker-2', labels: { 'pool-group': 'rack-b' } } });
    await until('/v1/nodes/worker-2', (res) => res.status === 200 && res.body.labels['pool-group'] === 'rack-b');
    await watcher.printed(/expired \(410 Gone\), relisting/, from);
  });

  it('collects the address of a pod deleted while the watcher was down, after two syncs', async () => {
    const pod = kube.upsert('pod', { metadata: { name: 'lost', namespace: 'apps' } });
    const kept = kube.upsert('pod', { metadata: { name: 'kept', namespace: 'apps' } });
    for (const p of [pod, kept]) {
      await api
        .http()
        .post('/v1/allocations')
        .send({ handle: `c-${p.metadata.name}`, node: 'worker-1', namespace: 'apps', pod: p.metadata.name, podUid: p.metadata.uid })
        .expect(201);
    }
    await watcher.stop();
    kube.remove('pod', 'apps/lost');
    watcher = await startWatcher();
    await until('/v1/allocations/c-lost', (res) => res.status === 404, 30_000);
    await get('/v1/allocations/c-kept').expect(200);
    const { rows } = await api.db.pool.query(`SELECT data FROM events WHERE type = 'IpReleased' AND data ->> 'handle' = 'c-lost'`);
    expect(rows).toHaveLength(1);
    expect(rows[0].data.reason).toMatchObject({ cause: 'pod-missing', syncs: [expect.any(Object), expect.any(Object)] });
  });
});
