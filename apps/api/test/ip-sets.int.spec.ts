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

  /**
   * a pod on `node`, once the API has recorded it; of ReplicaSet `owner` with its template's ip-set
   * (`hash`: a Deployment's pod-template-hash) and any other annotations
   */
  const pod = async (name: string, of?: Parameters<typeof ipSetPodMetadata>[0], node = 'node-1') => {
    const object = kube.upsert('pod', {
      metadata: { name, namespace: NAMESPACE, ...(of && ipSetPodMetadata(of)) },
      spec: { nodeName: node },
    });
    await eventually(
      () => objectStatus('pod', `${NAMESPACE}/${name}`),
      (status) => status === 'seen',
      20_000,
    );
    return { name, uid: object.metadata.uid, node };
  };

  /** the pod's address, asked for as the CNI plugin asks (ADD): its handle is the pod's name */
  const add = (target: { name: string; uid: string; node?: string }) =>
    call(api.base, 'POST', '/v1/allocations', {
      handle: `${target.name}:eth0`,
      node: target.node ?? 'node-1',
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

  /** the pool ranges an ip-set of this workload holds, in every pool: the read model, not the API's first one */
  const setRanges = async (kind: string, name: string) =>
    (
      await db.pool.query<{ pool: string }>('SELECT pool FROM pool_ranges WHERE namespace = $1 AND name = $2 ORDER BY pool', [
        NAMESPACE,
        `${kind}:${name}`,
      ])
    ).rows.map((r) => r.pool);
  const applied = (kind: string, name: string, statuses: string[]) =>
    eventually(
      () => objectStatus(kind, `${NAMESPACE}/${name}`),
      (status) => statuses.includes(status),
      20_000,
    );

  it("a pod allocating after its Deployment's deletion was applied reserves no set (503 IP_SET_WORKLOAD_DELETED), and a new Deployment of the name reserves afresh", async () => {
    const gone = { owner: 'gone-aaa', ipSet: '2', hash: 'aaa' };
    kube.upsert('deployment', { metadata: { name: 'gone', namespace: NAMESPACE } });
    const [early, late, never] = [await pod('gone-aaa-1', gone), await pod('gone-aaa-2', gone), await pod('gone-aaa-3', gone)];
    await ipOf(early);
    expect(await setRanges('Deployment', 'gone')).toEqual(['apps']);
    kube.remove('deployment', `${NAMESPACE}/gone`);
    await applied('deployment', 'gone', ['ip-set released']);
    // its pods still run (background deletion): one whose ADD comes now would reserve a set nothing releases
    const refused = await add(late);
    expect(refused).toMatchObject({ status: 503, body: { code: 'IP_SET_WORKLOAD_DELETED' } });
    expect(refused.body.message).toContain('Deployment shop/gone');
    expect(await setRanges('Deployment', 'gone')).toEqual([]);
    // so is a workload deleted before its first pod allocated: its deletion leaves the tombstone too
    kube.upsert('deployment', { metadata: { name: 'brief', namespace: NAMESPACE } });
    const orphan = await pod('brief-aaa-1', { owner: 'brief-aaa', ipSet: '2', hash: 'aaa' });
    kube.remove('deployment', `${NAMESPACE}/brief`);
    await applied('deployment', 'brief', ['deleted']);
    expect(await add(orphan)).toMatchObject({ status: 503, body: { code: 'IP_SET_WORKLOAD_DELETED' } });
    expect(await setRanges('Deployment', 'brief')).toEqual([]);
    // a new Deployment of the name (another uid), once seen, reserves afresh; a pod of the old one then joins it
    const again = kube.upsert('deployment', { metadata: { name: 'gone', namespace: NAMESPACE } });
    await eventually(
      async () =>
        (await db.pool.query("SELECT uid FROM kubernetes_objects WHERE kind = 'deployment' AND key = $1", [`${NAMESPACE}/gone`])).rows[0]
          ?.uid,
      (uid) => uid === again.metadata.uid,
      20_000,
    );
    await ipOf(await pod('gone-bbb-1', { ...gone, owner: 'gone-bbb', hash: 'bbb' }));
    expect(await setRanges('Deployment', 'gone')).toEqual(['apps']);
    await del(early);
    expect((await add(never)).status).toBe(201);
    const stream = await db.pool.query<{ type: string }>('SELECT type FROM events WHERE stream_id = $1 ORDER BY version', [
      `ipset-${NAMESPACE}/Deployment/gone`,
    ]);
    expect(stream.rows.map((e) => e.type)).toEqual(['IpSetReserved', 'IpSetWorkloadDeleted', 'IpSetReserved']);
    kube.remove('deployment', `${NAMESPACE}/gone`);
    await applied('deployment', 'gone', ['ip-set released']);
    for (const name of ['gone-aaa-2', 'gone-aaa-3', 'gone-bbb-1']) await call(api.base, 'DELETE', `/v1/allocations/${name}:eth0`);
  });

  /**
   * Runs `steps` while the test holds `table` (EXCLUSIVE: read, not written): each step starts work
   * that then waits on a lock (the table's, or a row an earlier step's waiting transaction wrote),
   * and the next step starts once it waits. Then the table is let go.
   */
  const whileHeld = async (table: string, steps: Array<() => void>) => {
    const client = await db.pool.connect();
    const waiting = async () =>
      Number(
        (
          await db.pool.query<{ n: string }>(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
          )
        ).rows[0].n,
      );
    try {
      await client.query('BEGIN');
      await client.query(`LOCK TABLE ${table} IN EXCLUSIVE MODE`);
      for (const [n, step] of steps.entries()) {
        step();
        await eventually(waiting, (count) => count === n + 1, 20_000);
      }
    } finally {
      await client.query('COMMIT');
      client.release();
    }
  };

  /** Deployments of one pod each, not yet allocated; each in a pool of its own, so that their allocations never wait for each other's pool */
  const raceWorkloads = async (names: string[], firstSubnet: number) => {
    const targets = [];
    for (const [w, name] of names.entries()) {
      expect((await call(api.base, 'POST', '/v1/pools', { name, cidr: `10.90.${firstSubnet + w}.0/24` })).status).toBe(201);
      kube.upsert('deployment', { metadata: { name, namespace: NAMESPACE } });
      const annotations = { 'ipam.ipledger.io/pools': name };
      targets.push(await pod(`${name}-aaa-1`, { owner: `${name}-aaa`, ipSet: '2', hash: 'aaa', annotations }));
    }
    return targets;
  };
  const removeDeployment = (name: string) => () => void kube.remove('deployment', `${NAMESPACE}/${name}`);

  it("a first pod's reservation still uncommitted when its Deployment's release reads is released by it: the release's append meets it on the workload's stream and decides again", async () => {
    const names = ['late-1', 'late-2'];
    const targets = await raceWorkloads(names, 0);
    const adds: Array<ReturnType<typeof add>> = [];
    // each reservation has appended (the projection of its range waits); each release then read the workload's stream and waits on the reservation's event
    await whileHeld(
      'pool_ranges',
      names.flatMap((name, w) => [() => void adds.push(add(targets[w])), removeDeployment(name)]),
    );
    for (const answer of await Promise.all(adds)) expect(answer.status).toBe(201);
    for (const name of names) await applied('deployment', name, ['ip-set released']);
    for (const name of names) expect(await setRanges('Deployment', name)).toEqual([]);
    for (const target of targets) await del(target);
  });

  it("first pods and their Deployments' releases that read the same workload stream, appending in either order, leave no set behind", async () => {
    const names = ['race-1', 'race-2', 'race-3', 'race-4'];
    const targets = await raceWorkloads(names, 2);
    const adds: Array<ReturnType<typeof add>> = [];
    // every one has read and decided, and waits to insert its events; let go, they commit in no set order
    await whileHeld(
      'events',
      names.flatMap((name, w) => {
        const allocate = () => void adds.push(add(targets[w]));
        return w % 2 ? [allocate, removeDeployment(name)] : [removeDeployment(name), allocate];
      }),
    );
    // the loser decides again: a release then finds the set, a reservation the tombstone
    for (const answer of await Promise.all(adds)) {
      expect(answer.status === 201 || (answer.status === 503 && answer.body.code === 'IP_SET_WORKLOAD_DELETED')).toBe(true);
    }
    for (const name of names) await applied('deployment', name, ['deleted', 'ip-set released']);
    for (const name of names) expect(await setRanges('Deployment', name)).toEqual([]);
    for (const target of targets) await call(api.base, 'DELETE', `/v1/allocations/${target.name}:eth0`);
  });

  it("a Deployment's first pods on many nodes at once, each node with its own eligible pool, reserve one set between them, and every pod's address is in it", async () => {
    for (const rack of ['a', 'b', 'c']) {
      kube.upsert('node', { metadata: { name: `node-${rack}`, labels: { rack } } });
      const created = await call(api.base, 'POST', '/v1/pools', {
        name: `rack-${rack}`,
        cidr: `10.8${rack.charCodeAt(0) - 97}.0.0/24`,
        labels: { tier: 'racks' },
        nodeSelector: `rack=${rack}`,
      });
      expect(created.status).toBe(201);
    }
    for (const rack of ['a', 'b', 'c']) {
      await eventually(
        () => objectStatus('node', `node-${rack}`),
        (status) => status?.startsWith('labels applied'),
        20_000,
      );
    }
    kube.upsert('deployment', { metadata: { name: 'spread', namespace: NAMESPACE } });
    const of = { owner: 'spread-aaa', ipSet: '24', hash: 'aaa', annotations: { 'ipam.ipledger.io/pool-selector': 'tier=racks' } };
    const replicas = await Promise.all(Array.from({ length: 24 }, (_, n) => pod(`spread-aaa-${n}`, of, `node-${'abc'[n % 3]}`)));
    const ips = await Promise.all(replicas.map(ipOf));
    const pools = await setRanges('Deployment', 'spread');
    expect(pools).toHaveLength(1);
    const { body: set } = await call(api.base, 'GET', `/v1/ipsets/${NAMESPACE}/Deployment/spread`);
    expect(set).toMatchObject({ pool: pools[0], size: 24, held: 24 });
    expect(new Set(ips).size).toBe(24);
    const value = (ip: string) => ip.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);
    expect(ips.filter((ip) => value(ip) < value(set.range.start) || value(ip) > value(set.range.end))).toEqual([]);
  });

  it("the same workload in two clusters holds two ip-sets, each its own cluster's, and a cluster with one stays in use", async () => {
    kube.upsert('deployment', { metadata: { name: 'twin', namespace: NAMESPACE } });
    replicaSet('twin-ccc', 'twin');
    const twin = await pod('twin-ccc-1', { owner: 'twin-ccc', ipSet: '2', hash: 'ccc' });
    const inDefault = await ipOf(twin);
    const request = { handle: `${twin.name}:eth0`, node: 'node-1', namespace: NAMESPACE, pod: twin.name, podUid: twin.uid };
    // the same objects watched as cluster east's too: its pod, ReplicaSet and Deployment are east's own
    const eastWatcher = await startWatcherProcess({
      ...bus.env,
      KUBECONFIG: kube.writeKubeconfig(dir),
      IPAM_CLUSTER: 'east',
      IPAM_WATCHER_TIMEOUT_SECONDS: '5',
      IPAM_WATCHER_RESYNC_SECONDS: '0',
    });
    let inEast: Awaited<ReturnType<typeof call>>;
    try {
      // 503 POD_NOT_SEEN until east's watcher has listed the pod
      inEast = await eventually(
        () => call(api.base, 'POST', '/v1/clusters/east/allocations', request),
        (res) => res.status !== 503,
        30_000,
      );
    } finally {
      await eastWatcher.stop();
    }
    expect(inEast).toMatchObject({ status: 201, body: { items: [{ cluster: 'east' }] } });
    const sets = await Promise.all(
      ['/v1/ipsets', '/v1/clusters/east/ipsets'].map((prefix) => call(api.base, 'GET', `${prefix}/${NAMESPACE}/Deployment/twin`)),
    );
    expect(sets.map((set) => set.status)).toEqual([200, 200]);
    const [own, east] = sets.map((set) => set.body);
    expect(own).toMatchObject({ cluster: 'default', name: 'twin', size: 2, held: 1 });
    expect(east).toMatchObject({ cluster: 'east', name: 'twin', size: 2, held: 1 });
    // two sets apart, each pod's address in its own cluster's
    const value = (ip: string) => ip.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);
    const within = (ip: string, set: { range: { start: string; end: string } }) =>
      value(set.range.start) <= value(ip) && value(ip) <= value(set.range.end);
    expect([within(inDefault, own), within(inEast.body.items[0].ip, east), within(inDefault, east)]).toEqual([true, true, false]);
    expect((await call(api.base, 'GET', '/v1/clusters/east/ipsets')).body).toEqual({ items: [east], continue: null });
    expect((await call(api.base, 'GET', '/v1/ipsets')).body.items.map((set: { cluster: string }) => set.cluster)).not.toContain('east');
    // the pod gone from east, its set still holds the cluster
    expect((await call(api.base, 'DELETE', `/v1/clusters/east/allocations/${twin.name}:eth0`)).status).toBe(204);
    const inUse = await call(api.base, 'DELETE', '/v1/clusters/east');
    expect(inUse).toMatchObject({
      status: 409,
      body: { code: 'CLUSTER_IN_USE', message: expect.stringMatching(/still has (nodes and )?ip-sets;/) },
    });
  });
});
