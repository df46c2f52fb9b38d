import { call, type ApiProcess } from '../../../test/support/api-process';
import { eventually } from '../../../test/support/eventually';
import type { FakeKubeApi } from '../../../test/support/fake-kube-api';
import { startKubernetesStack, type KubernetesStack } from '../../../test/support/kubernetes-stack';
import type { CheckReport } from '../src/check/cluster-check';

/**
 * A cluster moving to ipledger from another IPAM keeps its running pods' addresses. The fake
 * Kubernetes API holds pods that already run, with status.podIPs, before the watcher's first list;
 * the watcher and the API run as processes, as in a cluster.
 */
describe('adopting a running cluster (fake Kubernetes API, watcher and API processes)', () => {
  let stack: KubernetesStack;
  let kube: FakeKubeApi;
  let api: ApiProcess;

  const running = (...ips: string[]) => ({ phase: 'Running', podIP: ips[0], podIPs: ips.map((ip) => ({ ip })) });
  const runningPod = (name: string, ips: string[], spec: Record<string, unknown> = {}) =>
    kube.upsert('pod', { metadata: { name, namespace: 'shop' }, spec: { nodeName: 'n1', ...spec }, status: running(...ips) });
  const until = <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean) => eventually(read, done, 30_000, what);
  const uid = (name: string) => kube.get('pod', `shop/${name}`)!.metadata.uid;
  const podAllocations = async (name: string) =>
    (await call(api.base, 'GET', `/v1/allocations?namespace=shop&pod=${name}`)).body.items as Array<Record<string, unknown>>;
  const holderOf = async (ip: string) =>
    (
      await stack.db.pool.query<{ handle: string; pod: string }>(
        'SELECT handle, namespace || $2 || pod AS pod FROM allocations WHERE ip = $1',
        [ip, '/'],
      )
    ).rows;
  const check = async () => (await call(api.base, 'GET', '/v1/check')).body as CheckReport;
  const problems = (report: CheckReport, kind: string) => report.problems.filter((p) => p.kind === kind).map((p) => p.evidence);

  beforeAll(async () => {
    stack = await startKubernetesStack('adoption', {
      kube: { bookmarkIntervalMs: 500 },
      api: { from: 'source', env: { IPAM_LEAK_GRACE_SECONDS: '3600' } },
      // one pod sync, the first: a pod or a pool that comes later is adopted by its own path, not by the sync's look at every pod
      watcherEnv: { IPAM_WATCHER_TIMEOUT_SECONDS: '5', IPAM_WATCHER_RESYNC_SECONDS: '3600' },
      async beforeWatcher({ kube, api }) {
        // the pools cover the running pods' ranges before ipledger watches anything
        for (const pool of [
          { name: 'legacy', cidr: '10.92.0.0/24' },
          { name: 'legacy6', cidr: 'fd00:92::/64' },
        ])
          expect((await call(api.base, 'POST', '/v1/pools', pool)).status).toBe(201);
        // an address another holder has (a VM's) that a running pod reports too
        const vm = { handle: 'vm-1', node: 'n1', namespace: 'infra', pod: 'vm-1', ip: '10.92.0.40', pools: ['legacy'] };
        expect((await call(api.base, 'POST', '/v1/allocations', vm)).status).toBe(201);
        kube.upsert('node', { metadata: { name: 'n1' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
        const pod = (name: string, ips: string[], spec: Record<string, unknown> = {}) =>
          kube.upsert('pod', { metadata: { name, namespace: 'shop' }, spec: { nodeName: 'n1', ...spec }, status: running(...ips) });
        pod('web', ['10.92.0.10', 'fd00:92::10']);
        pod('agent', ['10.92.0.20'], { hostNetwork: true });
        pod('dup-a', ['10.92.0.30']);
        pod('dup-b', ['10.92.0.30']);
        pod('squatter', ['10.92.0.40']);
        pod('gone-soon', ['10.92.0.50']);
        pod('del-by-uid', ['10.92.0.60']);
        // no pool covers it yet
        pod('late', ['10.93.0.5']);
      },
    });
    ({ kube, api } = stack);
    await until(
      'the first pod sync applied',
      () => stack.db.pool.query(`SELECT 1 FROM kubernetes_syncs WHERE kind = 'pod' AND completed_at IS NOT NULL`),
      (r) => (r.rowCount ?? 0) > 0,
    );
    await stack.bus.idle();
  }, 120_000);
  afterAll(() => stack?.close());

  it("adopts a running pod's addresses, one item a family, adopted: true, as events the address's history shows", async () => {
    const items = await until(
      'web adopted',
      () => podAllocations('web'),
      (items) => items.length === 2,
    );
    expect(items).toEqual([
      expect.objectContaining({ handle: `adopted:${uid('web')}`, ip: '10.92.0.10', family: 4, pool: 'legacy', node: 'n1', adopted: true }),
      expect.objectContaining({ handle: `adopted:${uid('web')}`, ip: 'fd00:92::10', family: 6, pool: 'legacy6', adopted: true }),
    ]);
    expect(items.every((item) => item.podUid === uid('web') && item.owner === 'pod')).toBe(true);
    const history = (await call(api.base, 'GET', '/v1/ips/10.92.0.10/history')).body.items;
    expect(history).toEqual([expect.objectContaining({ type: 'IpAllocated', handle: `adopted:${uid('web')}`, pod: 'web' })]);
    // never handed to anyone else while held
    const taken = await call(api.base, 'POST', '/v1/allocations', {
      handle: 'other',
      node: 'n1',
      namespace: 'infra',
      pod: 'other',
      ip: '10.92.0.10',
      pools: ['legacy'],
    });
    expect(taken).toMatchObject({ status: 409, body: { code: 'IP_IN_USE' } });
  });

  it('does not adopt the address of a pod on the host network', async () => {
    expect(await holderOf('10.92.0.20')).toEqual([]);
    expect(await podAllocations('agent')).toEqual([]);
  });

  it('adopts an address two running pods report at most once, and check reports both', async () => {
    const holders = await holderOf('10.92.0.30');
    expect(holders).toHaveLength(1);
    expect(['shop/dup-a', 'shop/dup-b']).toContain(holders[0].pod);
    const report = await check();
    expect(problems(report, 'pod-ip-duplicate')).toEqual([
      {
        podIp: '10.92.0.30',
        pods: [
          expect.objectContaining({ pod: 'shop/dup-a', podUid: uid('dup-a') }),
          expect.objectContaining({ pod: 'shop/dup-b', podUid: uid('dup-b') }),
        ],
        holder: expect.objectContaining({ handle: holders[0].handle, holder: holders[0].pod }),
      },
    ]);
  });

  it('does not adopt an address another holder has, and check reports both holders', async () => {
    expect(await holderOf('10.92.0.40')).toEqual([{ handle: 'vm-1', pod: 'infra/vm-1' }]);
    // (the duplicate's second pod is reported too: its address is held by the first)
    expect(problems(await check(), 'pod-ip-held-by-other').filter((e) => e.podIp === '10.92.0.40')).toEqual([
      expect.objectContaining({ pod: 'shop/squatter', podUid: uid('squatter'), podIp: '10.92.0.40', handle: 'vm-1', holder: 'infra/vm-1' }),
    ]);
  });

  it("frees an adopted address at its pod's deletion", async () => {
    await until(
      'gone-soon adopted',
      () => podAllocations('gone-soon'),
      (items) => items.length === 1,
    );
    kube.remove('pod', 'shop/gone-soon');
    await until(
      'released',
      () => holderOf('10.92.0.50'),
      (rows) => rows.length === 0,
    );
    const history = (await call(api.base, 'GET', '/v1/ips/10.92.0.50/history')).body.items as Array<{ type: string }>;
    expect(history.map((h) => h.type)).toEqual(['IpAllocated', 'IpReleased']);
  });

  it("frees an adopted address at a CNI DEL naming the pod's uid, and does not adopt it again", async () => {
    await until(
      'del-by-uid adopted',
      () => podAllocations('del-by-uid'),
      (items) => items.length === 1,
    );
    // the sandbox's own handle never held it: the pod's uid is what releases it
    const del = await call(api.base, 'DELETE', `/v1/allocations/${encodeURIComponent('c0ffee:eth0')}?podUid=${uid('del-by-uid')}`);
    expect(del.status).toBe(204);
    expect(await holderOf('10.92.0.60')).toEqual([]);
    // the pod, still reported running with the address, is sent again: released once, not adopted again
    const pod = kube.get('pod', 'shop/del-by-uid')!;
    kube.upsert('pod', { ...pod, metadata: { ...pod.metadata, labels: { again: 'yes' } } });
    await until(
      'the new version recorded',
      () => stack.db.pool.query(`SELECT object -> 'metadata' -> 'labels' AS labels FROM kubernetes_objects WHERE key = 'shop/del-by-uid'`),
      (r) => r.rows[0]?.labels?.again === 'yes',
    );
    await stack.bus.idle();
    expect(await holderOf('10.92.0.60')).toEqual([]);
  });

  it('adopts the running pods a pool created after them covers', async () => {
    expect(await podAllocations('late')).toEqual([]);
    kube.upsert('ippool', { metadata: { name: 'late' }, spec: { cidr: '10.93.0.0/24' } });
    const items = await until(
      'late adopted',
      () => podAllocations('late'),
      (items) => items.length === 1,
    );
    expect(items[0]).toMatchObject({ ip: '10.93.0.5', pool: 'late', adopted: true, podUid: uid('late') });
    // a pod started later with an address of its own (another IPAM still on its node) is adopted at its message
    runningPod('later', ['10.93.0.6']);
    const later = await until(
      'later adopted',
      () => podAllocations('later'),
      (items) => items.length === 1,
    );
    expect(later[0]).toMatchObject({ ip: '10.93.0.6', adopted: true });
  });
});
