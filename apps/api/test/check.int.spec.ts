import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../../../test/support/eventually';
import { startFakeKubeApi, type FakeKubeApi } from '../../../test/support/fake-kube-api';
import { startTestApi, type TestApi } from '../../../test/support/test-api';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { startWatcherProcess, type WatcherProcess } from '../../../test/support/watcher-process';
import { runCli } from '../src/cli';
import type { CheckReport } from '../src/check/cluster-check';

/**
 * `ipledger check` and GET /v1/check against a cluster made with the fake Kubernetes API (through
 * the watcher process and the consumer) and the REST API: clean first, then one seeded
 * inconsistency of each kind, each found with its evidence.
 */
describe('ipledger check', () => {
  let dir: string;
  let kube: FakeKubeApi;
  let bus: TestBus;
  let api: TestApi;
  let watcher: WatcherProcess;

  const running = (ip?: string) => ({ phase: 'Running', ...(ip ? { podIP: ip, podIPs: [{ ip }] } : {}) });
  const until = <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000) =>
    eventually(read, done, timeoutMs, what);
  const report = async () => (await api.http().get('/v1/check').expect(200)).body as CheckReport;
  /** a report made after every change so far reached the consumer and a pod sync completed after them */
  const freshReport = async () => {
    const since = new Date();
    await until(
      'a pod sync after the changes',
      () =>
        api.db.pool.query(`SELECT 1 FROM kubernetes_syncs WHERE kind = 'pod' AND received_at > $1 AND completed_at IS NOT NULL`, [since]),
      (r) => (r.rowCount ?? 0) > 0,
    );
    await bus.idle();
    return report();
  };
  const allocate = async (body: Record<string, unknown>) =>
    (await api.http().post('/v1/allocations').send(body).expect(201)).body.items[0].ip as string;
  const runningPod = async (name: string, node: string) => {
    const pod = kube.upsert('pod', { metadata: { name, namespace: 'shop' }, spec: { nodeName: node }, status: { phase: 'Pending' } });
    const ip = await allocate({ handle: `h-${name}`, node, namespace: 'shop', pod: name, podUid: pod.metadata.uid, pools: ['net'] });
    kube.upsert('pod', { ...pod, status: running(ip) });
    return ip;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'check-'));
    kube = await startFakeKubeApi({ bookmarkIntervalMs: 500 });
    bus = await createTestBus('check');
    // a loaded machine may take more than the default 3 s to bring a new pod to the consumer
    api = await startTestApi('check', { env: { ...bus.env, IPAM_LEAK_GRACE_SECONDS: '3600', IPAM_POD_WAIT_MS: '20000' } });
    await api.http().post('/v1/pools').send({ name: 'net', cidr: '10.91.0.0/24' }).expect(201);
    for (const node of ['n1', 'n2'])
      kube.upsert('node', { metadata: { name: node }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
    kube.upsert('statefulset', {
      metadata: { name: 'db', namespace: 'shop', annotations: { 'ipam.ipledger.io/pool': 'net' } },
      spec: { replicas: 2 },
    });
    watcher = await startWatcherProcess({
      ...bus.env,
      KUBECONFIG: kube.writeKubeconfig(dir),
      IPAM_WATCHER_TIMEOUT_SECONDS: '2',
      IPAM_WATCHER_RESYNC_SECONDS: '0',
    });
    await until(
      'the range',
      () => api.http().get('/v1/statefulsets/shop/db'),
      (res) => res.status === 200,
    );
  }, 60_000);
  afterAll(async () => {
    await watcher?.stop();
    await api?.close();
    await bus?.close();
    await kube?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let web0 = '';
  it('reports nothing on a cluster that agrees with the allocations, and exits 0', async () => {
    web0 = await runningPod('web-0', 'n1');
    await runningPod('db-0', 'n1');
    // another CNI's pod outside every pool, and a hostNetwork pod with its node's address: not ours
    kube.upsert('pod', { metadata: { name: 'other', namespace: 'shop' }, spec: { nodeName: 'n1' }, status: running('192.168.9.9') });
    kube.upsert('pod', {
      metadata: { name: 'agent', namespace: 'shop' },
      spec: { nodeName: 'n1', hostNetwork: true },
      status: running('10.91.0.99'),
    });
    const clean = await freshReport();
    expect(clean.problems).toEqual([]);
    expect(clean.podSync).toMatchObject({ syncId: expect.any(String) });
    const lines: string[] = [];
    expect(await runCli(['check'], (line) => lines.push(line), { DATABASE_URL: api.db.url })).toBe(0);
    expect(lines.at(-1)).toMatch(/^default: no problem, compared with the pod sync/);
  });

  it('finds each seeded inconsistency with its evidence, and exits 1', async () => {
    // an allocation whose pod does not exist: the consumer was sent it (an allocation for a pod waits for that), the cluster lists none
    const ghost = { name: 'ghost', namespace: 'shop', uid: randomUUID(), resourceVersion: '1' };
    await bus.publisher.change({ kind: 'pod', type: 'ADDED', object: { metadata: ghost } });
    await bus.publisher.flush();
    await allocate({ handle: 'ghost', node: 'n1', namespace: 'shop', pod: 'ghost', podUid: ghost.uid, pools: ['net'] });
    // a running pod whose pod IP nobody holds (its status names another address than the one its CNI ADD got, so it is not
    // adopted), and one with another pod's address (reported by two pods)
    const rogue = kube.upsert('pod', {
      metadata: { name: 'rogue', namespace: 'shop' },
      spec: { nodeName: 'n1' },
      status: { phase: 'Pending' },
    });
    await allocate({ handle: 'h-rogue', node: 'n1', namespace: 'shop', pod: 'rogue', podUid: rogue.metadata.uid, pools: ['net'] });
    kube.upsert('pod', { ...rogue, status: running('10.91.0.200') });
    kube.upsert('pod', { metadata: { name: 'twin', namespace: 'shop' }, spec: { nodeName: 'n1' }, status: running(web0) });
    // a second IPv4 address for web-0 on the same network
    const web0Uid = kube.get('pod', 'shop/web-0')!.metadata.uid;
    const second = await allocate({
      handle: 'h-web-0-again',
      node: 'n1',
      namespace: 'shop',
      pod: 'web-0',
      podUid: web0Uid,
      pools: ['net'],
    });
    // a StatefulSet pod given an address outside its range
    const db1 = kube.upsert('pod', {
      metadata: { name: 'db-1', namespace: 'shop' },
      spec: { nodeName: 'n1' },
      status: { phase: 'Pending' },
    });
    await allocate({
      handle: 'h-db-1',
      node: 'n1',
      namespace: 'shop',
      pod: 'db-1',
      podUid: db1.metadata.uid,
      ip: '10.91.0.150',
      pools: ['net'],
    });
    // an address held for a node that is not Ready
    const stuckIp = await runningPod('stuck', 'n2');
    kube.upsert('node', { metadata: { name: 'n2' }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } });
    await until(
      'n2 not Ready',
      () => bus.idle().then(() => api.db.pool.query(`SELECT ready FROM kubernetes_node_readiness WHERE node = 'n2'`)),
      (r) => r.rows[0]?.ready === false,
    );
    kube.remove('pod', 'shop/stuck');

    const found = await freshReport();
    const byKind = (kind: string) => found.problems.filter((p) => p.kind === kind).map((p) => p.evidence);
    expect(found.problems.map((p) => p.kind).sort()).toEqual(
      [
        'pod-gone',
        'pod-ip-not-allocated',
        'pod-ip-held-by-other',
        'pod-ip-duplicate',
        'pod-holds-several',
        'statefulset-pod-outside-range',
        'held-for-unreachable-node',
      ].sort(),
    );
    expect(byKind('pod-gone')).toEqual([expect.objectContaining({ handle: 'ghost', namespace: 'shop', pod: 'ghost' })]);
    expect(byKind('pod-ip-not-allocated')).toEqual([expect.objectContaining({ pod: 'shop/rogue', podIp: '10.91.0.200' })]);
    expect(byKind('pod-ip-held-by-other')).toEqual([
      expect.objectContaining({ pod: 'shop/twin', podIp: web0, handle: 'h-web-0', holder: 'shop/web-0' }),
    ]);
    expect(byKind('pod-ip-duplicate')).toEqual([
      {
        podIp: web0,
        pods: [expect.objectContaining({ pod: 'shop/twin' }), expect.objectContaining({ pod: 'shop/web-0' })],
        holder: expect.objectContaining({ handle: 'h-web-0', holder: 'shop/web-0' }),
      },
    ]);
    expect(byKind('pod-holds-several')).toEqual([
      expect.objectContaining({
        pod: 'shop/web-0',
        family: 4,
        held: expect.arrayContaining([expect.objectContaining({ ip: web0 }), expect.objectContaining({ ip: second })]),
      }),
    ]);
    expect(byKind('statefulset-pod-outside-range')).toEqual([
      expect.objectContaining({ statefulSet: 'shop/db', pod: 'shop/db-1', ip: '10.91.0.150', handle: 'h-db-1' }),
    ]);
    expect(byKind('held-for-unreachable-node')).toEqual([expect.objectContaining({ handle: 'h-stuck', ip: stuckIp, node: 'n2' })]);

    const lines: string[] = [];
    expect(await runCli(['check', '--json'], (line) => lines.push(line), { DATABASE_URL: api.db.url })).toBe(1);
    expect((JSON.parse(lines.join('\n')) as CheckReport[]).map((r) => [r.cluster, r.problems.length])).toEqual([['default', 7]]);
  });

  it("checks one cluster at a time: another cluster's allocations are neither its findings nor in its evidence", async () => {
    const before = (await freshReport()).problems;
    // east holds the address the default cluster's pod rogue reports, which no allocation of the default cluster holds
    await api
      .http()
      .post('/v1/clusters/east/allocations')
      .send({ handle: 'east-rogue', node: 'n1', namespace: 'shop', pod: 'rogue', ip: '10.91.0.200', pools: ['net'] })
      .expect(201);

    const home = await freshReport();
    expect(home.cluster).toBe('default');
    expect(home.problems.map((p) => p.cluster)).toEqual(home.problems.map(() => 'default'));
    const rogue = home.problems.find((p) => p.kind === 'pod-ip-held-by-other' && p.evidence.pod === 'shop/rogue')!;
    expect(rogue.evidence).toMatchObject({ podIp: '10.91.0.200', holderCluster: 'east', handle: null, holder: null, holderUid: null });
    expect(rogue.message).toMatch(/which cluster east holds$/);
    // every other finding as it was
    expect(home.problems.filter((p) => p !== rogue)).toEqual(before.filter((p) => p.kind !== 'pod-ip-not-allocated'));
    expect(JSON.stringify(home.problems)).not.toContain('east-rogue');
    const prefixed = (await api.http().get('/v1/clusters/default/check').expect(200)).body as CheckReport;
    expect({ ...prefixed, checkedAt: '' }).toEqual({ ...home, checkedAt: '' });

    // east has no watcher: its allocations are compared with no pod, and none of the default cluster's findings is its
    const away = (await api.http().get('/v1/clusters/east/check').expect(200)).body as CheckReport;
    expect(away).toMatchObject({ cluster: 'east', podSync: null });
    expect(away.problems.map((p) => [p.cluster, p.kind])).toEqual([['east', 'no-complete-pod-sync']]);
    expect((await api.http().get('/v1/clusters/west/check').expect(404)).body.code).toBe('CLUSTER_NOT_FOUND');

    // the CLI: every cluster, each line naming its own; --cluster narrows to one
    const cli = async (...args: string[]) => {
      const lines: string[] = [];
      const code = await runCli(['check', ...args], (line) => lines.push(line), { DATABASE_URL: api.db.url });
      return { code, lines };
    };
    const fleet = await cli();
    expect(fleet.code).toBe(1);
    // a finding's line goes on with its evidence
    const verdicts = fleet.lines.map((line) => line.split('\n')[0]);
    expect(verdicts.filter((line) => line.startsWith('east: '))).toEqual([
      expect.stringMatching(/^east: no pod sync yet: the Kubernetes consumer has never synced the pods of cluster east/),
      'east: no problem, compared with no pod sync',
    ]);
    expect(verdicts.filter((line) => line.startsWith('default: '))).toEqual([
      ...home.problems.map((p) => `default: ${p.kind}: ${p.message}`),
      expect.stringMatching(/^default: 7 problem\(s\), compared with the pod sync/),
    ]);
    expect(verdicts).toHaveLength(10);
    const one = await cli('--json', '--cluster', 'east');
    expect(one.code).toBe(3);
    expect({ ...(JSON.parse(one.lines.join('\n')) as CheckReport), checkedAt: '' }).toEqual({ ...away, checkedAt: '' });
    expect(await cli('--cluster', 'west')).toEqual({ code: 2, lines: [expect.stringMatching(/^cluster "west" does not exist/)] });
    expect((await cli('--cluster')).code).toBe(2);
  });
});
