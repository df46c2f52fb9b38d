import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeKubeApi, type FakeKubeApi } from '../../../test/support/fake-kube-api';
import { startTestApi, type TestApi } from '../../../test/support/test-api';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { eventually } from '../../../test/support/eventually';
import { startWatcherProcess, type WatcherProcess } from '../../../test/support/watcher-process';

/**
 * One ledger for two clusters: two fake Kubernetes API servers, a watcher process for each
 * (IPAM_CLUSTER east and west) publishing to the one stream, one API consuming it. Objects of the
 * same name (and, from these fakes, the same uid and resourceVersion) in both are two objects,
 * each applied in its own cluster. Watches end every 1-2 s and the store is re-announced at each,
 * so pod syncs (and leak collection) run within the test.
 */
describe('two clusters, one API (fake Kubernetes APIs, watcher processes, real NATS and Postgres)', () => {
  let dir: string;
  let bus: TestBus;
  let api: TestApi;
  const kube: Record<'east' | 'west', FakeKubeApi> = {} as never;
  const watchers: WatcherProcess[] = [];

  const get = (path: string) => api.http().get(path);
  const until = (path: string, done: (res: { status: number; body: any }) => boolean, timeoutMs = 20_000) =>
    eventually(() => get(path), done, timeoutMs, `${path} to become as expected`);
  /** what the consumer recorded of an object of a cluster: its last status */
  const objectStatus = async (cluster: string, kind: string, key: string) =>
    (
      await api.db.pool.query<{ status: string }>('SELECT status FROM kubernetes_objects WHERE cluster = $1 AND kind = $2 AND key = $3', [
        cluster,
        kind,
        cluster === 'default' ? key : `${cluster}/${key}`,
      ])
    ).rows[0]?.status;
  /** until `count` of a cluster's pod syncs have completed since `since` */
  const syncsAfter = (cluster: string, since: Date, count: number) =>
    eventually(
      async () =>
        Number(
          (
            await api.db.pool.query(
              `SELECT count(*) FROM kubernetes_syncs WHERE cluster = $1 AND kind = 'pod' AND completed_at IS NOT NULL AND received_at > $2`,
              [cluster, since],
            )
          ).rows[0].count,
        ),
      (done) => done >= count,
      30_000,
      `${count} of ${cluster}'s pod syncs`,
    );
  /** the same object in both clusters: same name, uid and (both fakes counting alike) resourceVersion */
  const both = (write: (cluster: 'east' | 'west', kube: FakeKubeApi) => void) => {
    write('east', kube.east);
    write('west', kube.west);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'two-clusters-'));
    bus = await createTestBus('two_clusters');
    api = await startTestApi('two_clusters', {
      env: { ...bus.env, IPAM_LEAK_GRACE_SECONDS: '0', IPAM_POD_WAIT_MS: '20000', IPAM_IPPOOL_STATUS_INTERVAL_MS: '300' },
    });
    for (const cluster of ['east', 'west'] as const)
      kube[cluster] = await startFakeKubeApi({ token: `${cluster}-token`, bookmarkIntervalMs: 500 });
    both((cluster, k) => k.upsert('node', { metadata: { name: 'worker-1', uid: 'node-uid-1', labels: { zone: cluster } } }));
    kube.east.upsert('ippool', { metadata: { name: 'rack', uid: 'pool-uid-1' }, spec: { cidr: '10.90.0.0/24' } });
    kube.west.upsert('ippool', { metadata: { name: 'rack', uid: 'pool-uid-1' }, spec: { cidr: '10.91.0.0/24' } });
    // east's watcher first: the pool is east's IPPool's before west's IPPool of its name is listed
    await startWatcher('east');
    await until('/v1/pools/rack', (res) => res.status === 200);
    await startWatcher('west');
  });
  const startWatcher = async (cluster: 'east' | 'west') => {
    const own = join(dir, cluster);
    mkdirSync(own);
    watchers.push(
      await startWatcherProcess({
        ...bus.env,
        IPAM_CLUSTER: cluster,
        KUBECONFIG: kube[cluster].writeKubeconfig(own),
        IPAM_WATCHER_KINDS: 'node,pod,ippool,statefulset',
        IPAM_WATCHER_TIMEOUT_SECONDS: '2',
        IPAM_WATCHER_RESYNC_SECONDS: '0',
      }),
    );
  };
  afterAll(async () => {
    for (const watcher of watchers) await watcher.stop();
    await api?.close();
    await bus?.close();
    for (const k of Object.values(kube)) await k?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies a Node of one name (uid and resourceVersion too) in its own cluster, and none in the default cluster', async () => {
    await until('/v1/clusters/east/nodes/worker-1', (res) => res.status === 200);
    await until('/v1/clusters/west/nodes/worker-1', (res) => res.status === 200);
    expect((await get('/v1/clusters/east/nodes/worker-1')).body).toMatchObject({ cluster: 'east', labels: { zone: 'east' } });
    expect((await get('/v1/clusters/west/nodes/worker-1')).body).toMatchObject({ cluster: 'west', labels: { zone: 'west' } });
    expect((await get('/v1/nodes/worker-1')).status).toBe(404);
  });

  it("changes a Node's labels in its cluster only", async () => {
    kube.west.upsert('node', { metadata: { name: 'worker-1', uid: 'node-uid-1', labels: { zone: 'west', rack: 'r2' } } });
    await until('/v1/clusters/west/nodes/worker-1', (res) => res.body.labels?.rack === 'r2');
    expect((await get('/v1/clusters/east/nodes/worker-1')).body.labels).toEqual({ zone: 'east' });
  });

  it("refuses an IPPool of one cluster whose pool another cluster's IPPool holds, naming the owner, and changes nothing", async () => {
    const refused = await eventually(
      () => objectStatus('west', 'ippool', 'rack'),
      (status) => status !== undefined,
      20_000,
      "west's IPPool applied",
    );
    expect(refused).toMatch(/^refused: POOL_EXISTS: .*cluster east's IPPool/);
    expect((await get('/v1/pools/rack')).body).toMatchObject({ cidr: '10.90.0.0/24' });
    // its watcher writes the refusal into west's IPPool status; east's stays Accepted
    const condition = (k: FakeKubeApi) =>
      (k.get('ippool', 'rack')?.status as any)?.conditions?.find((c: { type: string }) => c.type === 'Refused');
    await eventually(
      () => condition(kube.west),
      (c) => c?.status === 'True',
      20_000,
      "west's IPPool Refused",
    );
    expect(condition(kube.west)).toMatchObject({ reason: 'POOL_EXISTS', message: expect.stringContaining("cluster east's IPPool") });
    await eventually(
      () => condition(kube.east),
      (c) => c !== undefined,
      20_000,
      "east's IPPool status",
    );
    expect(condition(kube.east)).toMatchObject({ status: 'False', reason: 'Accepted' });
    // deleting west's IPPool leaves the pool east's IPPool holds
    kube.west.remove('ippool', 'rack');
    await eventually(
      () => objectStatus('west', 'ippool', 'rack'),
      (status) => status?.startsWith('deleted') ?? false,
      20_000,
      "west's IPPool deleted",
    );
    expect(await objectStatus('west', 'ippool', 'rack')).toMatch(/pool rack kept: cluster east's IPPool holds it/);
    expect((await get('/v1/pools/rack')).status).toBe(200);
  });

  it("reads a pod's pool annotations from its own cluster's watcher: the pools its node may use, per cluster", async () => {
    await api.http().post('/v1/pools').send({ name: 'spare', cidr: '10.95.0.0/24' }).expect(201);
    kube.east.upsert('pod', {
      metadata: { name: 'db-0', namespace: 'apps', uid: 'pod-uid-db', annotations: { 'ipam.ipledger.io/pools': 'spare' } },
      spec: { nodeName: 'worker-1' },
    });
    kube.west.upsert('pod', { metadata: { name: 'db-0', namespace: 'apps', uid: 'pod-uid-db' }, spec: { nodeName: 'worker-1' } });
    const names = (res: { body: any }) => res.body.items?.map((p: { name: string }) => p.name);
    await eventually(
      () => objectStatus('west', 'pod', 'apps/db-0'),
      (status) => status !== undefined,
      20_000,
      "west's pod db-0 applied",
    );
    const east = await until('/v1/clusters/east/nodes/worker-1/pools?namespace=apps&pod=db-0', (res) => names(res)?.length === 1);
    expect(names(east)).toEqual(['spare']);
    expect(names(await get('/v1/clusters/west/nodes/worker-1/pools?namespace=apps&pod=db-0'))).toEqual(['rack', 'spare']);
  });

  it("reserves a StatefulSet of one name a range in each cluster, and its deletion in one releases that cluster's only", async () => {
    both((_, k) =>
      k.upsert('statefulset', {
        metadata: { name: 'db', namespace: 'apps', uid: 'sts-uid-1', annotations: { 'ipam.ipledger.io/pool': 'rack' } },
        spec: { replicas: 2 },
      }),
    );
    const reserved = async (cluster: string) =>
      (await until(`/v1/clusters/${cluster}/statefulsets/apps/db`, (res) => res.status === 200 && res.body.range !== null)).body;
    const [east, west] = [await reserved('east'), await reserved('west')];
    expect([east.cluster, west.cluster, east.pool, west.pool]).toEqual(['east', 'west', 'rack', 'rack']);
    expect(east.range.start).not.toEqual(west.range.start);
    expect((await get('/v1/statefulsets/apps/db')).status).toBe(404);
    kube.east.remove('statefulset', 'apps/db');
    await until('/v1/clusters/east/statefulsets/apps/db', (res) => res.status === 404);
    expect((await get('/v1/clusters/west/statefulsets/apps/db')).body).toMatchObject({ cluster: 'west', range: west.range });
  });

  it("frees a deleted pod's address in its cluster only, the other cluster's pod of the same name (and handle) keeping its own", async () => {
    both((_, k) => k.upsert('pod', { metadata: { name: 'web-1', namespace: 'apps', uid: 'pod-uid-1' }, spec: { nodeName: 'worker-1' } }));
    const ips: Record<string, string> = {};
    for (const cluster of ['east', 'west']) {
      const res = await api
        .http()
        .post(`/v1/clusters/${cluster}/allocations`)
        .send({ handle: 'c-web-1', node: 'worker-1', namespace: 'apps', pod: 'web-1', podUid: 'pod-uid-1', pools: ['rack'] });
      expect(res.status).toBe(201);
      ips[cluster] = res.body.items[0].ip;
    }
    expect(ips.east).not.toEqual(ips.west);
    kube.east.remove('pod', 'apps/web-1');
    await until('/v1/clusters/east/allocations/c-web-1', (res) => res.status === 404);
    // by the pod's DELETED (not by leak collection at the syncs after it)
    const { rows } = await api.db.pool.query<{ cause: string }>(
      `SELECT data -> 'reason' ->> 'cause' AS cause FROM events WHERE type = 'IpReleased' AND data ->> 'handle' = 'c-web-1' AND data ->> 'cluster' = 'east'`,
    );
    expect(rows).toEqual([{ cause: 'pod-deleted' }]);
    expect((await get('/v1/clusters/west/allocations/c-web-1')).body).toMatchObject({ items: [{ cluster: 'west', ip: ips.west }] });
  });

  it("leaves another cluster's pod addresses alone at a cluster's pod syncs (leak collection lists its own pods only)", async () => {
    // west's pod web-2 is live, and east has no pod web-2: east's syncs must not count west's address as missed
    kube.west.upsert('pod', { metadata: { name: 'web-2', namespace: 'apps', uid: 'pod-uid-2' }, spec: { nodeName: 'worker-1' } });
    const west = await api
      .http()
      .post('/v1/clusters/west/allocations')
      .send({ handle: 'c-web-2', node: 'worker-1', namespace: 'apps', pod: 'web-2', podUid: 'pod-uid-2', pools: ['rack'] })
      .expect(201);
    const { rows } = await api.db.pool.query<{ at: Date }>(
      `SELECT allocated_at AS at FROM allocations WHERE cluster = 'west' AND handle = 'c-web-2'`,
    );
    // two of east's pod syncs after the allocation (IPAM_LEAK_GRACE_SECONDS 0): enough to release a leak of east's own
    await syncsAfter('east', rows[0].at, 2);
    expect((await get('/v1/clusters/west/allocations/c-web-2')).body).toMatchObject({ items: [{ ip: west.body.items[0].ip }] });
    expect((await get('/v1/clusters/west/allocations/c-web-1')).status).toBe(200);
  });

  it("adopts a running pod's address in its own cluster: a pod of one name in each, each address its cluster's", async () => {
    // the pool "spare" (10.95.0.0/24, no clusterSelector) was made above; each cluster's pod reports its own address in it
    const running = (ip: string) => ({
      metadata: { name: 'old-1', namespace: 'legacy', uid: 'pod-uid-old-1' },
      spec: { nodeName: 'worker-1' },
      status: { phase: 'Running', podIPs: [{ ip }] },
    });
    kube.east.upsert('pod', running('10.95.0.40'));
    kube.west.upsert('pod', running('10.95.0.41'));
    const adopted = async (cluster: string) =>
      (
        await until(
          `/v1/clusters/${cluster}/allocations?namespace=legacy&pod=old-1`,
          (res) => res.status === 200 && res.body.items?.length === 1,
        )
      ).body.items;
    expect(await adopted('east')).toEqual([
      expect.objectContaining({ cluster: 'east', handle: 'adopted:pod-uid-old-1', ip: '10.95.0.40', pool: 'spare', adopted: true }),
    ]);
    expect(await adopted('west')).toEqual([
      expect.objectContaining({ cluster: 'west', handle: 'adopted:pod-uid-old-1', ip: '10.95.0.41', pool: 'spare', adopted: true }),
    ]);
    expect((await get('/v1/allocations?cluster=default&namespace=legacy&pod=old-1')).body.items).toEqual([]);
  });

  it("adopts no address another cluster's allocation holds, nor one of a pool its cluster's labels leave out", async () => {
    await api.http().post('/v1/pools').send({ name: 'north', cidr: '10.96.0.0/24', clusterSelector: 'region=north' }).expect(201);
    // west's pod reports the address east's pod old-1 holds; east's pod reports one of a pool east may not use
    kube.west.upsert('pod', {
      metadata: { name: 'copy-1', namespace: 'legacy', uid: 'pod-uid-copy-1' },
      spec: { nodeName: 'worker-1' },
      status: { phase: 'Running', podIPs: [{ ip: '10.95.0.40' }] },
    });
    kube.east.upsert('pod', {
      metadata: { name: 'north-1', namespace: 'legacy', uid: 'pod-uid-north-1' },
      spec: { nodeName: 'worker-1' },
      status: { phase: 'Running', podIPs: [{ ip: '10.96.0.7' }] },
    });
    const since = new Date();
    for (const cluster of ['east', 'west'] as const) await syncsAfter(cluster, since, 2);
    expect((await get('/v1/allocations?namespace=legacy&pod=copy-1')).body.items).toEqual([]);
    expect((await get('/v1/allocations?namespace=legacy&pod=north-1')).body.items).toEqual([]);
    expect((await get('/v1/ips/10.95.0.40/history')).body.items.map((e: { cluster: string }) => e.cluster)).toEqual(['east']);
  });

  it("checks a member cluster against its own watcher's pod sync, naming only its own findings", async () => {
    const east = await until('/v1/clusters/east/check', (res) => res.status === 200 && res.body.podSync !== null);
    expect(east.body.problems.map((p: { kind: string }) => p.kind)).not.toContain('no-complete-pod-sync');
    expect(east.body.problems.filter((p: { cluster: string }) => p.cluster !== 'east')).toEqual([]);
    // the default cluster has no watcher here: nothing to compare its pods with
    expect((await get('/v1/check')).body.problems.map((p: { kind: string }) => p.kind)).toContain('no-complete-pod-sync');
  });
});
