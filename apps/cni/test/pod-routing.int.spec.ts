import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { renderConflist } from '../src/install/render-conflist';
import { call, startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { cniBinDir, cniCall, NetworkSandbox, suffix, unusedPrivateRange } from '../../../test/support/cni-runner';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

const ROOT = join(__dirname, '../../..');
const run = promisify(execFile);

/** The shipped conflist templates (the ConfigMap of deploy/cni-daemonset.yaml). */
const TEMPLATES: Record<string, string> = parseAllDocuments(readFileSync(join(ROOT, 'deploy/cni-daemonset.yaml'), 'utf8'))
  .map((doc) => doc.toJS())
  .find((o) => o.kind === 'ConfigMap').data;

/**
 * docs/cni.md, "Pod routing", as it says: two nodes, each a network namespace with the shipped
 * template's main plugin (Debian's bridge or ptp) and pods from one shared pool with blocks through
 * the real ipledger-ipam, joined by a link of their own. Each node routes the other node's blocks
 * (`GET /v1/pools/{name}/blocks`) to it; with the bridge, cni0 answers ARP for them (proxy_arp).
 * A pod on node A then pings a pod on node B and back; before the routes it cannot.
 * Every address lies in a 10.x.0.0/16 no route of the host uses, inside namespaces the test made.
 */
describe.each([
  { template: 'bridge.conflist.template', octet: 1, proxyArp: true },
  { template: 'ptp.conflist.template', octet: 2, proxyArp: false },
])('pods on two nodes from one shared pool: $template', ({ template, octet, proxyArp }) => {
  const id = suffix();
  const sandbox = new NetworkSandbox();
  const pool = `shared-${octet}`;
  let db: TestDatabase;
  let api: ApiProcess;
  let bin: { dir: string; remove(): void };
  let range: string;

  const nodes = {
    a: { name: `node-a-${octet}`, ns: `ipl-${id}-na`, link: `ul${id}a`, address: '' },
    b: { name: `node-b-${octet}`, ns: `ipl-${id}-nb`, link: `ul${id}b`, address: '' },
  };
  type Node = (typeof nodes)['a'];
  const pods: Record<'a' | 'b', { ns: string; ip: string }> = { a: { ns: '', ip: '' }, b: { ns: '', ip: '' } };

  /** The shipped template's main plugin for one node, as the installer renders it (no masquerade: no iptables here, and pool-internal traffic is not masqueraded anyway). */
  const config = (node: Node) => {
    const conflist = JSON.parse(renderConflist(TEMPLATES[template], { nodeName: node.name, apiUrl: api.base }));
    const [main] = conflist.plugins;
    return { cniVersion: conflist.cniVersion, name: `ipl-rt-${id}`, ...main, ipMasq: false, ipam: { ...main.ipam, pools: [pool] } };
  };

  const inNode = (node: Node, command: string[]) => sandbox.exec(node.ns, command);

  beforeAll(async () => {
    if (process.getuid?.() !== 0) throw new Error('these tests make network namespaces: run them as root');
    execFileSync(process.execPath, ['scripts/build.js', '--if-changed'], { cwd: ROOT, stdio: 'inherit' });
    bin = cniBinDir();
    // a node here is a namespace, but the plugin runs in the host's, where the API is: as on a real node
    renameSync(join(bin.dir, 'ipledger-ipam'), join(bin.dir, 'ipledger-ipam-real'));
    writeFileSync(
      join(bin.dir, 'ipledger-ipam'),
      `#!/bin/sh\nexec /usr/bin/nsenter --net=/proc/${process.pid}/ns/net -- ${join(bin.dir, 'ipledger-ipam-real')} "$@"\n`,
    );
    chmodSync(join(bin.dir, 'ipledger-ipam'), 0o755);
    range = await unusedPrivateRange();
    db = await createTestDatabase(`pod_routing_${octet}`);
    api = await startApiProcess(db.url, { from: 'dist' });
    const created = await call(api.base, 'POST', '/v1/pools', {
      name: pool,
      cidr: `${range}.${octet}.0/24`,
      gateway: `${range}.${octet}.1`,
      blockSize: 26,
      blockAffinity: 'strict',
    });
    expect(created.status).toBe(201);
    // the nodes' own network: a link between them, 10.x.255.0/30
    for (const node of Object.values(nodes)) await sandbox.addNamespace(node.ns);
    await run('ip', ['-n', nodes.a.ns, 'link', 'add', nodes.a.link, 'type', 'veth', 'peer', 'name', nodes.b.link, 'netns', nodes.b.ns]);
    for (const [node, host] of [
      [nodes.a, 1],
      [nodes.b, 2],
    ] as const) {
      node.address = `${range}.255.${host}`;
      await run('ip', ['-n', node.ns, 'addr', 'add', `${node.address}/30`, 'dev', node.link]);
      await run('ip', ['-n', node.ns, 'link', 'set', node.link, 'up']);
      await inNode(node, ['sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    }
  }, 120_000);

  afterAll(async () => {
    await sandbox.cleanup();
    await api?.stop();
    await db?.drop();
    bin?.remove();
  });

  it("ADD on each node: each pod's address lies in its node's block of the shared pool", async () => {
    for (const side of ['a', 'b'] as const) {
      const node = nodes[side];
      const ns = `ipl-${id}-p${side}`;
      const path = await sandbox.addNamespace(ns);
      const add = await cniCall(
        '/usr/sbin/ip',
        {
          CNI_COMMAND: 'ADD',
          CNI_CONTAINERID: `c${id}${side}`,
          CNI_NETNS: path,
          CNI_IFNAME: 'eth0',
          CNI_PATH: bin.dir,
          CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=pod-${side};K8S_POD_INFRA_CONTAINER_ID=c${id}${side}`,
        },
        config(node),
        ['netns', 'exec', node.ns, join(bin.dir, template.split('.')[0])],
      );
      expect({ side, status: add.status, stderr: add.stderr }).toEqual({ side, status: 0, stderr: '' });
      pods[side] = { ns, ip: add.json.ips[0].address.split('/')[0] };
    }
    const blocks = (await call(api.base, 'GET', `/v1/pools/${pool}/blocks`)).body.items;
    expect(blocks.map((b: { cidr: string; node: string }) => ({ cidr: b.cidr, node: b.node }))).toEqual([
      { cidr: `${range}.${octet}.0/26`, node: nodes.a.name },
      { cidr: `${range}.${octet}.64/26`, node: nodes.b.name },
    ]);
  });

  /** One reply within 5 s, a request a second meanwhile (a pod's neighbour entry left FAILED by a try before the routes is probed again). */
  const ping = (from: 'a' | 'b', to: 'a' | 'b') => sandbox.exec(pods[from].ns, ['ping', '-c', '1', '-w', '5', pods[to].ip]);

  it('without routes between the nodes, a pod on A cannot reach a pod on B', async () => {
    // as docs/cni.md says: answered at once (the kernel's default delays a proxied answer up to 0.8 s)
    if (proxyArp)
      for (const node of Object.values(nodes))
        await inNode(node, ['sysctl', '-qw', 'net.ipv4.conf.cni0.proxy_arp=1', 'net.ipv4.neigh.cni0.proxy_delay=0']);
    await expect(ping('a', 'b')).rejects.toThrow();
  });

  it("with each node's blocks routed to it (docs/cni.md), pods on A and B ping each other", async () => {
    const blocks: Array<{ cidr: string; node: string }> = (await call(api.base, 'GET', `/v1/pools/${pool}/blocks`)).body.items;
    for (const node of Object.values(nodes)) {
      for (const block of blocks.filter((b) => b.node !== node.name)) {
        const via = Object.values(nodes).find((n) => n.name === block.node)!.address;
        await inNode(node, ['ip', 'route', 'replace', block.cidr, 'via', via]);
      }
    }
    await ping('a', 'b');
    await ping('b', 'a');
  });
});
