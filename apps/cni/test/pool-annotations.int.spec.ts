import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { KubeObjectMeta } from '@ipledger/messaging';
import { call, type ApiProcess } from '../../../test/support/api-process';
import { cniBinDir, cniCall, NetworkSandbox, suffix, unusedPrivateRange } from '../../../test/support/cni-runner';
import type { FakeKubeApi } from '../../../test/support/fake-kube-api';
import { eventually } from '../../../test/support/eventually';
import { startKubernetesStack, type KubernetesStack } from '../../../test/support/kubernetes-stack';
import type { TestDatabase } from '../../../test/support/test-database';
import { ipSetPodMetadata, replicaSetObject } from '../../../test/support/workload-objects';

const POD_WAIT_MS = 1500;

/**
 * Pool choice by annotation and Deployments' ip-sets, end to end: Namespaces, Pods, ReplicaSets
 * and Deployments in the fake Kubernetes API, the watcher and the API as processes, and the built
 * ipledger-ipam called by the real bridge plugin in real network namespaces (root), as kubelet's
 * runtime does. The CNI config asks for `matchLabel: rack`, which alone would give the node's pool
 * `by-rack`.
 */
describe('pool annotations and ip-sets, through the CNI plugin', () => {
  const id = suffix();
  const network = `ipl-ann-${id}`;
  const storage = `ipl-san-${id}`;
  const bridges = { [network]: `iplan${id}`, [storage]: `iplas${id}` };
  const sandbox = new NetworkSandbox();
  let stack: KubernetesStack;
  let kube: FakeKubeApi;
  let db: TestDatabase;
  let api: ApiProcess;
  let bin: { dir: string; remove(): void };
  let range: string;
  let seq = 0;

  const config = (name = network, ipam: Record<string, unknown> = {}) => ({
    cniVersion: '1.0.0',
    name,
    type: 'bridge',
    bridge: bridges[name],
    isGateway: false,
    ipMasq: false,
    ipam: { type: 'ipledger-ipam', url: api.base, node: 'node-1', matchLabel: 'rack', timeoutSeconds: 10, ...ipam },
  });

  const env = (command: string, cid: string, pod: { namespace: string; name: string; uid: string }, netns: string, ifname = 'eth0') => ({
    CNI_COMMAND: command,
    CNI_CONTAINERID: cid,
    CNI_NETNS: netns,
    CNI_IFNAME: ifname,
    CNI_PATH: bin.dir,
    CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=${pod.namespace};K8S_POD_NAME=${pod.name};K8S_POD_UID=${pod.uid}`,
  });

  const eventCount = async () => Number((await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0].n);

  /** a pod in the fake API, once the API has applied it */
  const pod = async (
    namespace: string,
    name: string,
    metadata: Pick<KubeObjectMeta, 'labels' | 'annotations' | 'ownerReferences'> = {},
    status = 'seen',
  ) => {
    const object = kube.upsert('pod', { metadata: { name, namespace, ...metadata }, spec: { nodeName: 'node-1' } });
    await eventually(
      () => stack.objectStatus('pod', `${namespace}/${name}`),
      (applied) => applied?.startsWith(status) ?? false,
      20_000,
    );
    return { namespace, name, uid: object.metadata.uid };
  };

  /**
   * ADD through the bridge (into a fresh network namespace unless `netns`): the plugin's answer, what
   * the API records for the attachment, and its DEL, as the runtime calls it when the pod goes
   */
  async function add(
    target: { namespace: string; name: string; uid: string },
    {
      name = network,
      ifname = 'eth0',
      netns,
      ipam,
    }: { name?: string; ifname?: string; netns?: string; ipam?: Record<string, unknown> } = {},
  ) {
    const cid = `c${id}${String(++seq).padStart(4, '0')}`;
    const path = netns ?? (await sandbox.addNamespace(`ipl-${id}-${seq}`));
    const answer = await cniCall(join(bin.dir, 'bridge'), env('ADD', cid, target, path, ifname), config(name, ipam));
    const held = await call(api.base, 'GET', `/v1/allocations/${encodeURIComponent(`${cid}:${ifname}`)}`);
    return {
      answer,
      held,
      path,
      pool: held.status === 200 ? (held.body.items[0].pool as string) : null,
      ip: held.status === 200 ? (held.body.items[0].ip as string) : null,
      del: () => cniCall(join(bin.dir, 'bridge'), env('DEL', cid, target, path, ifname), config(name, ipam)),
    };
  }
  type Added = Awaited<ReturnType<typeof add>>;

  /** the IPv4 addresses on the links of a network namespace the sandbox made, as `ip -o` prints them */
  const addressesIn = async (path: string, ...dev: string[]) =>
    (await sandbox.exec(path.split('/').pop()!, ['ip', '-4', '-o', 'addr', 'show', ...dev])).stdout;

  beforeAll(async () => {
    if (process.getuid?.() !== 0) throw new Error('these tests make network namespaces: run them as root');
    execFileSync(process.execPath, ['scripts/build.js', '--if-changed'], { cwd: join(__dirname, '../../..'), stdio: 'inherit' });
    bin = cniBinDir();
    range = await unusedPrivateRange();
    Object.values(bridges).forEach((bridge) => sandbox.own(bridge));
    stack = await startKubernetesStack('pool_annotations', {
      kube: { bookmarkIntervalMs: 500 },
      api: { from: 'dist', env: { IPAM_POD_WAIT_MS: String(POD_WAIT_MS) } },
      watcherEnv: { IPAM_WATCHER_TIMEOUT_SECONDS: '5', IPAM_WATCHER_RESYNC_SECONDS: '0' },
      async beforeWatcher({ kube, api }) {
        for (const pool of [
          { name: 'by-rack', cidr: `${range}.1.0/24`, labels: { rack: 'r1' } },
          { name: 'pod-pool', cidr: `${range}.2.0/24` },
          { name: 'ns-pool', cidr: `${range}.3.0/24` },
          { name: 'san-a', cidr: `${range}.4.0/24` },
          { name: 'web-pool', cidr: `${range}.7.0/24` },
        ]) {
          expect((await call(api.base, 'POST', '/v1/pools', pool)).status).toBe(201);
        }
        kube.upsert('node', { metadata: { name: 'node-1', labels: { rack: 'r1' } } });
        kube.upsert('namespace', { metadata: { name: 'shop', annotations: { 'ipam.ipledger.io/pools': 'ns-pool' } } });
        kube.upsert('namespace', { metadata: { name: 'plain', labels: { team: 'a' } } });
      },
    });
    ({ kube, db, api } = stack);
    await eventually(
      () =>
        Promise.all([
          stack.objectStatus('node', 'node-1'),
          stack.objectStatus('namespace', 'shop'),
          stack.objectStatus('namespace', 'plain'),
        ]),
      (statuses) => statuses.every((status) => status !== undefined && status !== 'applying'),
      20_000,
    );
  }, 120_000);

  afterAll(async () => {
    await sandbox.cleanup();
    await stack?.close();
    bin?.remove();
  });

  it("a pod's annotation wins over its namespace's and over the CNI config's matchLabel", async () => {
    const target = await pod('shop', 'annotated', { annotations: { 'ipam.ipledger.io/pools': 'pod-pool' } });
    const { answer, held, path, ip } = await add(target);
    expect(answer.status).toBe(0);
    expect(held.body.items).toEqual([expect.objectContaining({ pool: 'pod-pool', namespace: 'shop', pod: 'annotated' })]);
    expect(await addressesIn(path, 'dev', 'eth0')).toContain(`inet ${ip}/24`);
  });

  it("a pod without annotations in an annotated namespace gets the namespace's pool; elsewhere the config's rule applies", async () => {
    expect((await add(await pod('shop', 'follows-namespace'))).pool).toBe('ns-pool');
    expect((await add(await pod('plain', 'follows-config'))).pool).toBe('by-rack');
  });

  it('an ADD that comes before the watcher sent the pod waits for it, and gets the annotated pool', async () => {
    const uid = randomUUID();
    const pending = add({ namespace: 'shop', name: 'early', uid });
    await new Promise((resolve) => setTimeout(resolve, POD_WAIT_MS / 3));
    kube.upsert('pod', { metadata: { name: 'early', namespace: 'shop', uid, annotations: { 'ipam.ipledger.io/pools': 'pod-pool' } } });
    const { answer, pool } = await pending;
    expect(answer.status).toBe(0);
    expect(pool).toBe('pod-pool');
  });

  // the CNI plugin retries a 503 itself: this asks the API once, so only the API's own wait can answer it
  it('the API itself waits for a pod not sent yet: one request, answered with the annotated pool once the pod comes', async () => {
    const uid = randomUUID();
    const body = { handle: `rest-${id}:eth0`, node: 'node-1', namespace: 'shop', pod: 'early-rest', podUid: uid, matchLabel: 'rack' };
    const pending = call(api.base, 'POST', '/v1/allocations', body);
    await new Promise((resolve) => setTimeout(resolve, POD_WAIT_MS / 3));
    kube.upsert('pod', { metadata: { name: 'early-rest', namespace: 'shop', uid, annotations: { 'ipam.ipledger.io/pools': 'pod-pool' } } });
    const answer = await pending;
    expect(answer.status).toBe(201);
    expect(answer.body.items[0].pool).toBe('pod-pool');
  });

  it('a pod the watcher never sends gets code 11 (POD_NOT_SEEN) after the wait, and nothing is held', async () => {
    const before = await eventCount();
    const { answer, held } = await add({ namespace: 'shop', name: 'never-sent', uid: randomUUID() }, { ipam: { timeoutSeconds: 3 } });
    expect(answer.status).not.toBe(0);
    expect(answer.json).toMatchObject({ code: 11, msg: expect.stringContaining('POD_NOT_SEEN') });
    expect(held.status).toBe(404);
    expect(await eventCount()).toBe(before);
  });

  it("a pod on two networks gets one address from each network's pool", async () => {
    const target = await pod('shop', 'two-networks', {
      annotations: {
        'ipam.ipledger.io/networks': JSON.stringify([
          { network, pools: ['pod-pool'] },
          { network: storage, pools: ['san-a'] },
        ]),
      },
    });
    const first = await add(target);
    const second = await add(target, { name: storage, ifname: 'net1', netns: first.path });
    expect([first.answer.status, second.answer.status]).toEqual([0, 0]);
    expect([first.pool, second.pool]).toEqual(['pod-pool', 'san-a']);
    const addresses = await addressesIn(first.path);
    expect(addresses).toContain(`inet ${first.ip}/24`);
    expect(addresses).toContain(`inet ${second.ip}/24`);
  });

  it("a malformed annotation is the pod's status, and its ADD gets code 100+ with INVALID_ANNOTATION and appends nothing", async () => {
    const target = await pod(
      'shop',
      'malformed',
      { annotations: { 'ipam.ipledger.io/pools': 'Not_A_Pool' } },
      'refused: INVALID_ANNOTATION',
    );
    expect(await stack.objectStatus('pod', 'shop/malformed')).toContain('annotation ipam.ipledger.io/pools');
    const before = await eventCount();
    const { answer, held } = await add(target);
    expect(answer.json.code).toBeGreaterThanOrEqual(100);
    expect(answer.json.msg).toContain('INVALID_ANNOTATION');
    expect(held.status).toBe(404);
    expect(await eventCount()).toBe(before);
    const explained = await call(api.base, 'GET', '/v1/nodes/node-1/pools?namespace=shop&pod=malformed&explain=true');
    expect(explained).toMatchObject({ status: 400, body: { code: 'INVALID_ANNOTATION' } });
  });

  it('an annotation naming an unknown pool is NO_ELIGIBLE_POOL', async () => {
    const target = await pod('shop', 'unknown-pool', { annotations: { 'ipam.ipledger.io/pools': 'no-such-pool' } });
    const { answer } = await add(target);
    expect(answer.json).toMatchObject({ code: expect.any(Number), msg: expect.stringContaining('NO_ELIGIBLE_POOL') });
    expect(answer.json.code).toBeGreaterThanOrEqual(100);
  });

  it('an external allocation reads no annotation and waits for no pod', async () => {
    const body = { handle: `ext-${id}`, node: 'node-1', namespace: 'shop', pod: 'annotated', owner: 'external', matchLabel: 'rack' };
    const res = await call(api.base, 'POST', '/v1/allocations', body);
    expect(res.status).toBe(201);
    expect(res.body.items[0].pool).toBe('by-rack');
    const unknown = await call(api.base, 'POST', '/v1/allocations', { ...body, handle: `ext2-${id}`, pod: 'not-in-kubernetes' });
    expect(unknown.status).toBe(201);
  });

  it('explain says which rule chose the candidates', async () => {
    const explain = async (query: string) => (await call(api.base, 'GET', `/v1/nodes/node-1/pools?explain=true&${query}`)).body;
    expect(await explain('namespace=shop&pod=annotated&matchLabel=rack')).toMatchObject({
      chosenBy: 'pod-annotation',
      items: [expect.objectContaining({ name: 'pod-pool' })],
    });
    expect(await explain('namespace=shop&matchLabel=rack')).toMatchObject({
      chosenBy: 'namespace-annotation',
      items: [expect.objectContaining({ name: 'ns-pool' })],
    });
    expect(await explain(`namespace=shop&pod=two-networks&network=${storage}`)).toMatchObject({
      chosenBy: 'pod-annotation',
      items: [expect.objectContaining({ name: 'san-a' })],
    });
    expect(await explain('namespace=plain&matchLabel=rack')).toMatchObject({
      chosenBy: 'request',
      items: [expect.objectContaining({ name: 'by-rack' })],
    });
    expect((await explain('namespace=plain')).chosenBy).toBe('server-default');
  });

  it("a pod's pools are read with its annotations: the node's labels still meet each nodeSelector, and an unknown name is said", async () => {
    const fits = { name: 'rack-r1', cidr: `${range}.5.0/24`, nodeSelector: 'rack=r1' };
    const elsewhere = { name: 'rack-r2', cidr: `${range}.6.0/24`, nodeSelector: 'rack=r2' };
    for (const body of [fits, elsewhere]) expect((await call(api.base, 'POST', '/v1/pools', body)).status).toBe(201);
    await pod('shop', 'by-node', { annotations: { 'ipam.ipledger.io/pools': 'rack-r2, no-such-pool, rack-r1' } });
    const res = await call(api.base, 'GET', '/v1/nodes/node-1/pools?explain=true&namespace=shop&pod=by-node');
    expect(res.body.items.map((p: { name: string }) => p.name)).toEqual(['rack-r1']);
    expect(res.body.excluded).toEqual([
      { pool: 'no-such-pool', reason: 'not found' },
      { pool: 'rack-r2', reason: expect.stringContaining('nodeSelector') },
    ]);
  });

  describe('a Deployment of 3 with ip-set 3', () => {
    // one Deployment's life, in order: each step starts where the one before left it
    const template = (replicaSet: string, hash: string) =>
      ipSetPodMetadata({ owner: replicaSet, hash, ipSet: '3', annotations: { 'ipam.ipledger.io/pools': 'web-pool' } });
    const webSet = () => call(api.base, 'GET', '/v1/ipsets/shop/Deployment/web');
    let old: Added[];
    let first: string[];
    let current: Added[];
    let reserved: { start: string; end: string };

    it("its pods' ADDs reserve the set in one pool and take its three addresses", async () => {
      kube.upsert('deployment', { metadata: { name: 'web', namespace: 'shop' } });
      kube.upsert('replicaset', replicaSetObject('shop', 'web-aaa', 'web'));
      const pods = await Promise.all([1, 2, 3].map((n) => pod('shop', `web-aaa-${n}`, template('web-aaa', 'aaa'))));
      old = await Promise.all(pods.map((target) => add(target)));
      expect(old.map((added) => added.answer.status)).toEqual([0, 0, 0]);
      first = old.map((added) => added.ip!);
      const set = await webSet();
      expect(set).toMatchObject({ status: 200, body: { kind: 'Deployment', name: 'web', pool: 'web-pool', size: 3, held: 3 } });
      reserved = set.body.range;
      // the set is three consecutive addresses of web-pool's /24: its last octets tell them
      const [from, to] = [reserved.start, reserved.end].map((ip) => Number(ip.split('.')[3]));
      expect(to - from).toBe(2);
      expect([...first].sort()).toEqual([from, from + 1, from + 2].map((octet) => `${range}.7.${octet}`).sort());
      for (const added of old) expect(await addressesIn(added.path, 'dev', 'eth0')).toContain(`inet ${added.ip}/24`);
    });

    it("a rollout: the surge pod's ADD is code 11 (IP_SET_FULL) until an old pod's DEL, and the new ReplicaSet keeps the same three addresses", async () => {
      kube.upsert('replicaset', replicaSetObject('shop', 'web-bbb', 'web'));
      const surge = await pod('shop', 'web-bbb-1', template('web-bbb', 'bbb'));
      const before = await eventCount();
      const refused = await add(surge, { ipam: { timeoutSeconds: 2 } });
      expect(refused.answer.json).toMatchObject({ code: 11, msg: expect.stringContaining('IP_SET_FULL') });
      expect(refused.held.status).toBe(404);
      expect(await eventCount()).toBe(before);
      // kubelet tries again: the plugin retries the 503 within its timeout, until an old pod's DEL frees an address
      let settled = false;
      const retried = add(surge).finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(settled).toBe(false);
      expect((await old[0].del()).status).toBe(0);
      const surged = await retried;
      expect(surged.answer.status).toBe(0);
      expect(surged.ip).toBe(first[0]);
      for (const added of old.slice(1)) expect((await added.del()).status).toBe(0);
      const rest = await Promise.all([2, 3].map(async (n) => add(await pod('shop', `web-bbb-${n}`, template('web-bbb', 'bbb')))));
      current = [surged, ...rest];
      expect(current.map((added) => added.answer.status)).toEqual([0, 0, 0]);
      expect(current.map((added) => added.ip).sort()).toEqual([...first].sort());
      // the old ReplicaSet goes, its Deployment stays: so does the set
      kube.remove('replicaset', 'shop/web-aaa');
      await eventually(
        () => stack.objectStatus('replicaset', 'shop/web-aaa'),
        (status) => status === 'deleted',
        20_000,
      );
      expect((await webSet()).body).toMatchObject({ range: reserved, held: 3 });
    });

    it('deleting the Deployment releases the set: its range leaves the pool, and after the DELs any pod may take its addresses', async () => {
      const ranges = async () => (await call(api.base, 'GET', '/v1/pools/web-pool')).body.statefulSetRanges;
      expect(await ranges()).toEqual([{ namespace: 'shop', name: 'Deployment:web', cluster: 'default', ...reserved }]);
      kube.remove('deployment', 'shop/web');
      kube.remove('replicaset', 'shop/web-bbb');
      await eventually(webSet, (res) => res.status === 404, 20_000);
      expect(await ranges()).toEqual([]);
      for (const added of current) expect((await added.del()).status).toBe(0);
      const after = await add(await pod('shop', 'after-web', { annotations: { 'ipam.ipledger.io/pools': 'web-pool' } }));
      expect(first).toContain(after.ip);
    });
  });
});
