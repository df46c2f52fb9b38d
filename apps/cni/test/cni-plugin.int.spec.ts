import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { join } from 'node:path';
import { call, startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { cniBinDir, cniCall, NetworkSandbox, suffix, unusedPrivateRange } from '../../../test/support/cni-runner';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

/**
 * ipledger-ipam as kubelet's runtime uses it: the real bridge plugin (Debian's
 * containernetworking-plugins) in real network namespaces, with "ipam": {"type": "ipledger-ipam"},
 * against a running API. Needs root (ip netns). Addresses come from a 10.x.0.0/16 no host route
 * uses, on a bridge without an address on the host: traffic stays between the test's namespaces.
 */
describe('ipledger-ipam with the bridge plugin', () => {
  const id = suffix();
  const network = `ipl-test-${id}`;
  const bridge = `iplbr${id}`;
  const sandbox = new NetworkSandbox();
  let db: TestDatabase;
  let api: ApiProcess;
  let bin: { dir: string; remove(): void };
  let range: string;
  let seq = 0;

  const ipamPlugin = () => join(bin.dir, 'ipledger-ipam');
  const bridgePlugin = () => join(bin.dir, 'bridge');

  const config = (ipam: Record<string, unknown> = {}, cniVersion = '1.0.0') => ({
    cniVersion,
    name: network,
    type: 'bridge',
    bridge,
    isGateway: false,
    ipMasq: false,
    ipam: {
      type: 'ipledger-ipam',
      url: api.base,
      node: 'node-1',
      pools: ['pods'],
      timeoutSeconds: 10,
      routes: [{ dst: `${range}.0.0/16` }],
      ...ipam,
    },
  });

  const env = (command: string, containerId: string, pod: string, netns = '') => ({
    CNI_COMMAND: command,
    CNI_CONTAINERID: containerId,
    CNI_NETNS: netns,
    CNI_IFNAME: 'eth0',
    CNI_PATH: bin.dir,
    CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=${pod};K8S_POD_INFRA_CONTAINER_ID=${containerId}`,
  });

  const containerId = () => `c${id}${String(++seq).padStart(4, '0')}`;

  async function closedPortUrl(): Promise<string> {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    server.close();
    return `http://127.0.0.1:${port}`;
  }

  beforeAll(async () => {
    if (process.getuid?.() !== 0) throw new Error('these tests make network namespaces: run them as root');
    execFileSync(process.execPath, ['scripts/build.js', '--if-changed'], { cwd: join(__dirname, '../../..'), stdio: 'inherit' });
    bin = cniBinDir();
    range = await unusedPrivateRange();
    sandbox.own(bridge);
    db = await createTestDatabase('cni_plugin');
    api = await startApiProcess(db.url, { from: 'source' });
    for (const pool of [
      { name: 'pods', cidr: `${range}.1.0/24`, gateway: `${range}.1.1` },
      { name: 'tiny', cidr: `${range}.9.0/30`, gateway: `${range}.9.1` },
      { name: 'sts', cidr: `${range}.5.0/24`, gateway: `${range}.5.1` },
    ]) {
      expect((await call(api.base, 'POST', '/v1/pools', pool)).status).toBe(201);
    }
  }, 120_000);

  afterAll(async () => {
    await sandbox.cleanup();
    await api?.stop();
    await db?.drop();
    bin?.remove();
  });

  /** ADD through the bridge into a fresh namespace; returns the namespace, the container id and the result. */
  async function attach(pod: string): Promise<{ ns: string; cid: string; result: any }> {
    const cid = containerId();
    const ns = `ipl-${id}-${seq}`;
    const path = await sandbox.addNamespace(ns);
    const add = await cniCall(bridgePlugin(), env('ADD', cid, pod, path), config());
    expect(add).toMatchObject({ status: 0 });
    return { ns, cid, result: add.json };
  }

  let a: { ns: string; cid: string; result: any };
  let b: { ns: string; cid: string; result: any };

  it('ADD: eth0 has the address the API shows for the handle, and the route goes through the pool gateway', async () => {
    a = await attach('pod-a');
    const held = await call(api.base, 'GET', `/v1/allocations/${encodeURIComponent(`${a.cid}:eth0`)}`);
    expect(held.status).toBe(200);
    const [allocation] = held.body.items;
    expect(allocation).toMatchObject({
      pool: 'pods',
      gateway: `${range}.1.1`,
      network,
      node: 'node-1',
      namespace: 'default',
      pod: 'pod-a',
    });
    const address = `${allocation.ip}/${allocation.prefixLength}`;
    expect(a.result.ips).toEqual([expect.objectContaining({ address, gateway: `${range}.1.1` })]);
    const { stdout: addr } = await sandbox.exec(a.ns, ['ip', '-4', '-o', 'addr', 'show', 'dev', 'eth0']);
    expect(addr).toContain(`inet ${address}`);
    const { stdout: routes } = await sandbox.exec(a.ns, ['ip', '-4', 'route']);
    expect(routes).toContain(`${range}.0.0/16 via ${range}.1.1 dev eth0`);
    // the pool shows its gateway, which no one is given
    const pool = await call(api.base, 'GET', '/v1/pools/pods');
    expect(pool.body).toMatchObject({ gateway: `${range}.1.1`, allocated: '1' });
    expect(allocation.ip).not.toBe(`${range}.1.1`);
  });

  it('a retried ADD keeps the same address', async () => {
    const again = await cniCall(ipamPlugin(), env('ADD', a.cid, 'pod-a', `/var/run/netns/${a.ns}`), config());
    expect(again.status).toBe(0);
    expect(again.json.ips).toEqual(a.result.ips.map(({ address, gateway }: any) => ({ address, gateway })));
    expect((await call(api.base, 'GET', '/v1/pools/pods')).body.allocated).toBe('1');
  });

  // before a second port joins the bridge: the bridge plugin's CHECK compares the bridge's MAC, which a new port can change
  it('CHECK passes on the right prevResult and fails on a wrong one', async () => {
    const path = `/var/run/netns/${a.ns}`;
    const right = await cniCall(bridgePlugin(), env('CHECK', a.cid, 'pod-a', path), { ...config(), prevResult: a.result });
    expect(right).toMatchObject({ status: 0, stdout: '' });
    const wrongResult = { ...a.result, ips: [{ ...a.result.ips[0], address: `${range}.1.200/24` }] };
    const wrong = await cniCall(ipamPlugin(), env('CHECK', a.cid, 'pod-a', path), { ...config(), prevResult: wrongResult });
    expect(wrong.status).toBe(1);
    expect(wrong.json).toMatchObject({ cniVersion: '1.0.0', code: 101, msg: expect.stringContaining(`${range}.1.200/24`) });
  });

  it('two namespaces ping each other over the bridge', async () => {
    b = await attach('pod-b');
    const ipOf = (r: any) => r.ips[0].address.split('/')[0];
    await sandbox.exec(a.ns, ['ping', '-c', '1', '-W', '5', ipOf(b.result)]);
    await sandbox.exec(b.ns, ['ping', '-c', '1', '-W', '5', ipOf(a.result)]);
  });

  it('DEL releases, and a second DEL succeeds', async () => {
    const handle = encodeURIComponent(`${b.cid}:eth0`);
    const path = `/var/run/netns/${b.ns}`;
    expect(await cniCall(bridgePlugin(), env('DEL', b.cid, 'pod-b', path), config())).toMatchObject({ status: 0 });
    expect((await call(api.base, 'GET', `/v1/allocations/${handle}`)).status).toBe(404);
    expect(await cniCall(bridgePlugin(), env('DEL', b.cid, 'pod-b', path), config())).toMatchObject({ status: 0 });
    expect(await cniCall(ipamPlugin(), env('DEL', b.cid, 'pod-b', ''), config())).toMatchObject({ status: 0, stdout: '' });
  });

  it("a StatefulSet pod gets its ordinal's address", async () => {
    const reservation = await call(api.base, 'PUT', '/v1/statefulsets/default/web', { replicas: 3, pool: 'sts' });
    expect(reservation.status).toBe(200);
    const start = Number(reservation.body.range.start.split('.')[3]);
    const add = await cniCall(ipamPlugin(), env('ADD', containerId(), 'web-2', ''), config({ pools: undefined }));
    expect(add.status).toBe(0);
    expect(add.json.ips).toEqual([{ address: `${range}.5.${start + 2}/24`, gateway: `${range}.5.1` }]);
  });

  it('20 ADDs in parallel get 20 distinct addresses', async () => {
    const adds = await Promise.all(
      Array.from({ length: 20 }, (_, i) => cniCall(ipamPlugin(), env('ADD', containerId(), `par-${i}`, ''), config())),
    );
    expect(adds.map((r) => r.status)).toEqual(Array(20).fill(0));
    const addresses = adds.map((r) => r.json.ips[0].address);
    expect(new Set(addresses).size).toBe(20);
    expect((await call(api.base, 'GET', '/v1/pools/pods')).body.allocated).toBe('21');
  });

  it('with the API down, ADD and DEL give code 11', async () => {
    const down = config({ url: await closedPortUrl(), timeoutSeconds: 1 });
    for (const command of ['ADD', 'DEL']) {
      const outcome = await cniCall(ipamPlugin(), env(command, containerId(), 'pod-x', ''), down);
      expect(outcome.status).toBe(1);
      expect(outcome.json).toMatchObject({ cniVersion: '1.0.0', code: 11, msg: expect.stringContaining('try again later') });
      expect(outcome.stdout).not.toMatch(/\n\s+at /);
    }
  });

  it('an exhausted pool gives code 100 or more naming POOL_EXHAUSTED', async () => {
    const tiny = config({ pools: ['tiny'] });
    const first = await cniCall(ipamPlugin(), env('ADD', containerId(), 'tiny-1', ''), tiny);
    expect(first.json.ips).toEqual([{ address: `${range}.9.2/30`, gateway: `${range}.9.1` }]);
    const second = await cniCall(ipamPlugin(), env('ADD', containerId(), 'tiny-2', ''), tiny);
    expect(second.status).toBe(1);
    expect(second.json.code).toBeGreaterThanOrEqual(100);
    expect(second.json.msg).toMatch(/^POOL_EXHAUSTED: /);
  });

  it('GC releases exactly the attachments that are not listed', async () => {
    const gcNetwork = `ipl-gc-${id}`;
    const gcConfig = (node: string, name = gcNetwork) => ({ ...config({ node }, '1.1.0'), name });
    const ids = Array.from({ length: 4 }, () => containerId());
    for (const cid of ids) expect((await cniCall(ipamPlugin(), env('ADD', cid, `gc-${cid}`, ''), gcConfig('node-gc'))).status).toBe(0);
    const otherNetwork = containerId();
    const otherNode = containerId();
    expect((await cniCall(ipamPlugin(), env('ADD', otherNetwork, 'gc-net', ''), gcConfig('node-gc', `${gcNetwork}-b`))).status).toBe(0);
    expect((await cniCall(ipamPlugin(), env('ADD', otherNode, 'gc-node', ''), gcConfig('node-other'))).status).toBe(0);

    const keep = [ids[0], ids[2]];
    const gc = await cniCall(
      ipamPlugin(),
      { CNI_COMMAND: 'GC', CNI_PATH: bin.dir },
      { ...gcConfig('node-gc'), 'cni.dev/valid-attachments': keep.map((containerID) => ({ containerID, ifname: 'eth0' })) },
    );
    expect(gc).toMatchObject({ status: 0, stdout: '' });
    const holds = async (cid: string) => (await call(api.base, 'GET', `/v1/allocations/${encodeURIComponent(`${cid}:eth0`)}`)).status;
    expect(await Promise.all(ids.map(holds))).toEqual([200, 404, 200, 404]);
    expect(await holds(otherNetwork)).toBe(200);
    expect(await holds(otherNode)).toBe(200);
  });

  it('STATUS answers from /readyz (1.1.0), and is refused for older configs', async () => {
    const status = (cfg: object) => cniCall(ipamPlugin(), { CNI_COMMAND: 'STATUS', CNI_PATH: bin.dir }, cfg);
    expect(await status(config({}, '1.1.0'))).toMatchObject({ status: 0, stdout: '' });
    const down = await status(config({ url: await closedPortUrl(), timeoutSeconds: 1 }, '1.1.0'));
    expect(down).toMatchObject({ status: 1, json: { code: 50 } });
    expect((await status(config({}, '1.0.0'))).json).toMatchObject({ code: 1 });
  });

  it('answers a 0.3.1 config in the 0.3.1 format, through the bridge too', async () => {
    const cid = containerId();
    const ns = `ipl-${id}-v3`;
    const path = await sandbox.addNamespace(ns);
    const add = await cniCall(bridgePlugin(), env('ADD', cid, 'pod-v3', path), config({}, '0.3.1'));
    expect(add.status).toBe(0);
    expect(add.json).toMatchObject({
      cniVersion: '0.3.1',
      ips: [{ version: '4', address: expect.stringMatching(/\/24$/), gateway: `${range}.1.1` }],
    });
    expect(await cniCall(bridgePlugin(), env('DEL', cid, 'pod-v3', path), config({}, '0.3.1'))).toMatchObject({ status: 0 });
  });
});
