import { call, startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { eventually } from '../../../test/support/eventually';
import type { FakeKubeApi } from '../../../test/support/fake-kube-api';
import { startKubernetesStack, type KubernetesStack } from '../../../test/support/kubernetes-stack';
import type { TestBus } from '../../../test/support/test-bus';

/** Rounds of changes before the stream is lost: each is a message of the Node and one of the pods. */
const ROUNDS = 150;

/**
 * Issue 32, "streams that come back": the JetStream stream is deleted under the running watcher
 * and API (both processes, as they run in a cluster) after enough traffic that the objects' last
 * applied sequences are far above anything the new stream reaches. The new stream numbers from 1
 * again; its messages must still be applied as the newer ones they are. Leak collection is kept
 * out of the way (the default grace and resync): a deleted pod's address is released by its
 * DELETED alone.
 */
describe('a stream made again under the running watcher and API', () => {
  let stack: KubernetesStack;
  let kube: FakeKubeApi;
  let bus: TestBus;
  /** the stack's API, then the one started again */
  let api: ApiProcess;
  const apiEnv = { IPAM_POD_WAIT_MS: '20000' };

  const labels = async () => (await call(api.base, 'GET', '/v1/nodes/worker-1')).body?.labels as Record<string, string> | undefined;
  const labelled = (want: Record<string, string>, timeoutMs = 30_000) =>
    eventually(labels, (l) => JSON.stringify(l) === JSON.stringify(want), timeoutMs, `worker-1 labelled ${JSON.stringify(want)}`);
  const lastSequence = async () => (await bus.jsm.streams.info(bus.names.stream)).state.last_seq;
  /** the stream there again, made by the API's consumer */
  const streamBack = () =>
    eventually(
      () => bus.jsm.streams.info(bus.names.stream).catch(() => null),
      (info) => info !== null,
      30_000,
      'the stream made again',
    );

  beforeAll(async () => {
    stack = await startKubernetesStack('stream_again', {
      kube: { bookmarkIntervalMs: 500 },
      api: { from: 'dist', env: apiEnv },
      watcherEnv: { IPAM_WATCHER_KINDS: 'node,pod' },
      beforeWatcher: ({ kube }) => {
        kube.upsert('node', { metadata: { name: 'worker-1', labels: { zone: 'a' } } });
        for (const name of ['web-0', 'web-1'])
          kube.upsert('pod', { metadata: { name, namespace: 'apps' }, spec: { nodeName: 'worker-1' } });
      },
    });
    ({ kube, bus, api } = stack);
  });
  afterAll(async () => {
    if (api !== stack?.api) await api?.stop();
    await stack?.close();
  });

  it("applies a known Node's labels, a known pod's deletion and a pod come back under a known name after the stream is deleted", async () => {
    expect((await call(api.base, 'POST', '/v1/pools', { name: 'again', cidr: '10.73.0.0/24' })).status).toBe(201);
    await labelled({ zone: 'a' });
    const web0 = kube.get('pod', 'apps/web-0')!;
    const allocated = await eventually(
      () =>
        call(api.base, 'POST', '/v1/allocations', {
          handle: 'h-web-0',
          node: 'worker-1',
          namespace: 'apps',
          pod: 'web-0',
          podUid: web0.metadata.uid,
        }),
      (r) => r.status === 201,
      30_000,
    );
    expect(allocated.body.items[0].pool).toBe('again');

    // traffic: every round a message of the Node (its labels change) and one of the two pods
    for (let round = 1; round <= ROUNDS; round++) {
      kube.upsert('node', { metadata: { name: 'worker-1', labels: { zone: 'a', round: String(round) } } });
      for (const name of ['web-0', 'web-1'])
        kube.upsert('pod', {
          metadata: { name, namespace: 'apps', annotations: { round: String(round) } },
          spec: { nodeName: 'worker-1' },
        });
    }
    await labelled({ zone: 'a', round: String(ROUNDS) });
    await bus.idle(60_000);
    const { rows } = await stack.db.pool.query<{ seq: string }>(
      `SELECT min(stream_sequence) AS seq FROM kubernetes_objects WHERE (kind, key) IN (('node', 'worker-1'), ('pod', 'apps/web-0'), ('pod', 'apps/web-1'))`,
    );
    const known = Number(rows[0].seq);
    expect(known).toBeGreaterThanOrEqual(ROUNDS);

    await bus.jsm.streams.delete(bus.names.stream);
    // the API makes it again first: the watcher's publishes then succeed, into a stream numbered from 1
    await streamBack();
    kube.upsert('node', { metadata: { name: 'worker-1', labels: { zone: 'b' } } });
    kube.remove('pod', 'apps/web-0');
    kube.remove('pod', 'apps/web-1');
    const web1 = kube.upsert('pod', { metadata: { name: 'web-1', namespace: 'apps' }, spec: { nodeName: 'worker-1' } });

    expect(await labelled({ zone: 'b' })).toEqual({ zone: 'b' });
    await eventually(
      () => call(api.base, 'GET', '/v1/allocations/h-web-0'),
      (r) => r.status === 404,
      30_000,
      "web-0's address released",
    );
    // the new web-1 (another uid): the allocation waits for the API to know it (IPAM_POD_WAIT_MS), else 503 POD_NOT_SEEN
    const fresh = await call(api.base, 'POST', '/v1/allocations', {
      handle: 'h-web-1',
      node: 'worker-1',
      namespace: 'apps',
      pod: 'web-1',
      podUid: web1.metadata.uid,
    });
    expect({ status: fresh.status, code: fresh.body.code }).toEqual({ status: 201, code: undefined });
    // what made it hard: every message of the new stream had a lower sequence than the objects' last applied one
    expect(await lastSequence()).toBeLessThan(known);
  });

  // runs on from the test above
  it('brings back what the lost stream held unconsumed: the watcher relists when an acknowledgement shows the stream made again', async () => {
    await api.stop();
    // published while the API is away: in the stream, not consumed
    const before = await lastSequence();
    kube.upsert('node', { metadata: { name: 'worker-1', labels: { zone: 'c' } } });
    await eventually(lastSequence, (seq) => seq > before, 20_000, 'the label change stored');
    await bus.jsm.streams.delete(bus.names.stream);
    // the API's start makes the stream again, empty; no publish of the watcher fails
    api = await startApiProcess(stack.db.url, { from: 'dist', env: { ...bus.env, ...apiEnv } });
    await streamBack();
    const from = stack.watcher.lines.length;
    kube.upsert('pod', { metadata: { name: 'web-2', namespace: 'apps' }, spec: { nodeName: 'worker-1' } });
    expect(await labelled({ zone: 'c' })).toEqual({ zone: 'c' });
    await stack.watcher.printed(/was made again \(sequence \d+ after \d+\): every kind lists again/, from);
  });
});
