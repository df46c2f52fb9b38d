import { call, type ApiProcess } from '../../../test/support/api-process';
import type { FakeKubeApi } from '../../../test/support/fake-kube-api';
import { eventually } from '../../../test/support/eventually';
import { startKubernetesStack, type KubernetesStack } from '../../../test/support/kubernetes-stack';
import type { TestDatabase } from '../../../test/support/test-database';

const GRACE_SECONDS = 6;

/**
 * A deleted pod's address is freed only when no sandbox can still use it. The fake Kubernetes API,
 * the watcher and the API run as they do in a cluster (the watcher and the API as processes); the
 * CNI plugin's calls are made over REST.
 */
describe('addresses held for a node (fake Kubernetes API, watcher and API processes)', () => {
  let stack: KubernetesStack;
  let kube: FakeKubeApi;
  let db: TestDatabase;
  let api: ApiProcess;

  const ready = (status: 'True' | 'False' | 'Unknown') => ({ conditions: [{ type: 'Ready', status }] });
  const running = { containerStatuses: [{ name: 'app', state: { running: { startedAt: '2026-01-01T00:00:00Z' } } }] };
  const terminated = { containerStatuses: [{ name: 'app', state: { terminated: { exitCode: 0 } } }] };
  const setNode = async (name: string, status: 'True' | 'False' | 'Unknown') => {
    kube.upsert('node', { metadata: { name }, status: ready(status) });
    const want = status === 'True' ? 'labels applied; Ready' : 'labels applied; not Ready';
    await until(`node ${name} ${status}`, async () => (await stack.objectStatus('node', name)) === want);
  };
  const until = (what: string, done: () => Promise<boolean>, timeoutMs = 20_000) => eventually(done, Boolean, timeoutMs, what);
  /** a running pod on a node, with its address allocated as the CNI ADD would */
  const podWithAddress = async (name: string, node: string) => {
    const pod = kube.upsert('pod', { metadata: { name, namespace: 'shop' }, spec: { nodeName: node }, status: running });
    const res = await call(api.base, 'POST', '/v1/allocations', {
      handle: `h-${name}`,
      node,
      namespace: 'shop',
      pod: name,
      podUid: pod.metadata.uid,
      pools: ['tiny'],
    });
    expect(res.status).toBe(201);
    await until(`pod ${name} seen`, async () => (await stack.objectStatus('pod', `shop/${name}`)) === 'seen');
    return { pod, ip: res.body.items[0].ip as string };
  };
  const allocation = (handle: string) => call(api.base, 'GET', `/v1/allocations/${handle}`);
  const releaseReason = async (handle: string) =>
    (await db.pool.query(`SELECT data FROM events WHERE type = 'IpReleased' AND data ->> 'handle' = $1`, [handle])).rows[0]?.data.reason;

  beforeAll(async () => {
    stack = await startKubernetesStack('held_for_node', {
      kube: { bookmarkIntervalMs: 500 },
      api: {
        from: 'source',
        env: {
          IPAM_UNREACHABLE_NODE_GRACE_SECONDS: String(GRACE_SECONDS),
          IPAM_LEAK_GRACE_SECONDS: '3600',
          // a loaded machine may take more than the default 3 s to bring a new pod to the consumer
          IPAM_POD_WAIT_MS: '20000',
        },
      },
      watcherEnv: { IPAM_WATCHER_TIMEOUT_SECONDS: '5', IPAM_WATCHER_RESYNC_SECONDS: '0' },
      async beforeWatcher({ kube, api }) {
        // a /29: 6 addresses to hand out, few enough to exhaust
        expect((await call(api.base, 'POST', '/v1/pools', { name: 'tiny', cidr: '10.90.0.0/29' })).status).toBe(201);
        for (const node of ['n1', 'n2', 'n3']) kube.upsert('node', { metadata: { name: node }, status: ready('True') });
      },
    });
    ({ kube, db, api } = stack);
    for (const node of ['n1', 'n2', 'n3']) await until(`node ${node}`, async () => (await stack.objectStatus('node', node)) !== undefined);
  }, 120_000);
  afterAll(() => stack?.close());

  it('frees at once the address of a pod deleted normally on a Ready node', async () => {
    const { pod } = await podWithAddress('normal', 'n2');
    // the kubelet stops the containers, reports them terminated, then removes the pod
    kube.upsert('pod', { ...pod, status: terminated });
    kube.remove('pod', 'shop/normal');
    await until('released', async () => (await allocation('h-normal')).status === 404);
    expect(await releaseReason('h-normal')).toEqual({ cause: 'pod-deleted', podUid: pod.metadata.uid });
  });

  it('holds the address of a pod force-deleted on a NotReady node, hands it to nobody, and frees it at the CNI DEL once the node is back', async () => {
    const { ip } = await podWithAddress('lost', 'n1');
    await setNode('n1', 'False');
    kube.remove('pod', 'shop/lost');
    await until('held', async () => (await stack.objectStatus('pod', 'shop/lost'))?.startsWith('held') ?? false);
    const held = await allocation('h-lost');
    expect(held.body.items[0]).toMatchObject({ ip, heldForNode: { node: 'n1', cause: 'node-not-ready', since: expect.any(String) } });

    // every other address of the pool goes to new pods; the held one to none
    const given: string[] = [];
    for (let i = 0; ; i++) {
      const res = await call(api.base, 'POST', '/v1/allocations', {
        handle: `fill-${i}`,
        node: 'n2',
        namespace: 'shop',
        pod: `fill-${i}`,
        pools: ['tiny'],
      });
      if (res.status !== 201) {
        expect(res.body.code).toBe('POOL_EXHAUSTED');
        break;
      }
      given.push(res.body.items[0].ip);
    }
    expect(given).toHaveLength(5);
    expect(given).not.toContain(ip);
    for (let i = 0; i < given.length; i++) expect((await call(api.base, 'DELETE', `/v1/allocations/fill-${i}`)).status).toBe(204);

    // Ready again: still held until the node's CNI DEL for the sandbox
    await setNode('n1', 'True');
    expect((await allocation('h-lost')).body.items[0].heldForNode).toMatchObject({ node: 'n1' });
    expect((await call(api.base, 'DELETE', '/v1/allocations/h-lost')).status).toBe(204);
    expect((await allocation('h-lost')).status).toBe(404);
  });

  it('holds the address of a pod force-deleted with running containers on a Ready node', async () => {
    await podWithAddress('forced', 'n2');
    kube.remove('pod', 'shop/forced');
    await until('held', async () => (await stack.objectStatus('pod', 'shop/forced'))?.startsWith('held') ?? false);
    expect((await allocation('h-forced')).body.items[0].heldForNode).toMatchObject({ node: 'n2', cause: 'containers-running' });
    expect((await call(api.base, 'DELETE', '/v1/allocations/h-forced')).status).toBe(204);
  });

  it('frees a held address once its node has not been Ready for the grace period, and says so', async () => {
    await podWithAddress('partitioned', 'n1');
    await setNode('n1', 'Unknown');
    const notReadySince = Date.now();
    kube.remove('pod', 'shop/partitioned');
    await until('held', async () => (await stack.objectStatus('pod', 'shop/partitioned'))?.startsWith('held') ?? false);
    await until('released after the grace', async () => (await allocation('h-partitioned')).status === 404, (GRACE_SECONDS + 10) * 1000);
    expect(Date.now() - notReadySince).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000 - 500);
    expect(await releaseReason('h-partitioned')).toMatchObject({ cause: 'node-unreachable', node: 'n1', graceSeconds: GRACE_SECONDS });
  });

  it('frees a held address when its node object is deleted', async () => {
    await podWithAddress('orphan', 'n3');
    await setNode('n3', 'False');
    kube.remove('pod', 'shop/orphan');
    await until('held', async () => (await stack.objectStatus('pod', 'shop/orphan'))?.startsWith('held') ?? false);
    kube.remove('node', 'n3');
    await until('released', async () => (await allocation('h-orphan')).status === 404);
    expect(await releaseReason('h-orphan')).toMatchObject({ cause: 'node-deleted', node: 'n3' });
  });
});
