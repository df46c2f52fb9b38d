import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { KubeObject } from '@ipledger/messaging';
import { call, type ApiProcess } from '../../../test/support/api-process';
import { cniBinDir, cniCall, NetworkSandbox, suffix, unusedPrivateRange } from '../../../test/support/cni-runner';
import type { FakeKubeApi } from '../../../test/support/fake-kube-api';
import { eventually } from '../../../test/support/eventually';
import { startKubernetesStack, type KubernetesStack } from '../../../test/support/kubernetes-stack';

/**
 * A KubeVirt VM's live migration as kubelet's runtime makes it, end to end: VirtualMachine,
 * VirtualMachineInstance and virt-launcher pods in the fake Kubernetes API, the watcher and the API
 * as processes, and the built ipledger-ipam called by Debian's bridge plugin in real network
 * namespaces (root). Each node is a bridge of its own on this host (the same CNI network), so the
 * source and the target may carry the same address at once, as on two real nodes; the address is
 * in a 10.x.0.0/16 no host route uses, on bridges without an address: traffic stays in the test.
 */
describe('KubeVirt live migration through the CNI plugin', () => {
  const id = suffix();
  const network = `ipl-vm-${id}`;
  const nodes = { a: { name: 'worker-a', bridge: `iplva${id}` }, b: { name: 'worker-b', bridge: `iplvb${id}` } };
  type Node = (typeof nodes)['a'];
  const claim = 'kubevirt:default:vms:vm-m';
  const claimPath = `/v1/claims/${encodeURIComponent(claim)}`;
  const sandbox = new NetworkSandbox();
  let stack: KubernetesStack;
  let kube: FakeKubeApi;
  let api: ApiProcess;
  let bin: { dir: string; remove(): void };
  let range: string;
  let seq = 0;

  const config = (node: Node) => ({
    cniVersion: '1.0.0',
    name: network,
    type: 'bridge',
    bridge: node.bridge,
    isGateway: false,
    ipMasq: false,
    ipam: { type: 'ipledger-ipam', url: api.base, node: node.name, pools: ['vms'], timeoutSeconds: 10 },
  });

  /** a pod in the fake API, once the API has applied it (its ADD then finds its owner and labels) */
  const pod = async (name: string, node: Node, metadata: Pick<KubeObject['metadata'], 'labels' | 'ownerReferences'> = {}) => {
    const object = kube.upsert('pod', { metadata: { name, namespace: 'vms', ...metadata }, spec: { nodeName: node.name } });
    await eventually(
      () => stack.objectStatus('pod', `vms/${name}`),
      (status) => status?.startsWith('seen') ?? false,
      20_000,
    );
    return object;
  };
  const launcher = (name: string, node: Node, vmi: KubeObject) =>
    pod(name, node, {
      labels: { 'kubevirt.io': 'virt-launcher' },
      ownerReferences: [
        { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', name: vmi.metadata.name, uid: vmi.metadata.uid, controller: true },
      ],
    });

  /** The pod's sandbox on a node: ADD through the bridge into a fresh network namespace, and its DEL. */
  async function attach(target: KubeObject, node: Node) {
    const cid = `c${id}${String(++seq).padStart(4, '0')}`;
    const ns = `ipl-${id}-${seq}`;
    const path = await sandbox.addNamespace(ns);
    const env = (command: string) => ({
      CNI_COMMAND: command,
      CNI_CONTAINERID: cid,
      CNI_NETNS: path,
      CNI_IFNAME: 'eth0',
      CNI_PATH: bin.dir,
      CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=vms;K8S_POD_NAME=${target.metadata.name};K8S_POD_UID=${target.metadata.uid}`,
    });
    const answer = await cniCall(join(bin.dir, 'bridge'), env('ADD'), config(node));
    expect({ status: answer.status, stderr: answer.stderr }).toEqual({ status: 0, stderr: '' });
    return {
      ns,
      handle: `${cid}:eth0`,
      address: answer.json.ips[0].address as string,
      ip: (answer.json.ips[0].address as string).split('/')[0],
      del: () => cniCall(join(bin.dir, 'bridge'), env('DEL'), config(node)),
    };
  }
  type Attached = Awaited<ReturnType<typeof attach>>;

  const get = (path: string) => call(api.base, 'GET', path);
  const referencePods = async () => ((await get(claimPath)).body.references as Array<{ pod: string }>).map((r) => r.pod).sort();
  /** the IPv4 addresses on the pod's eth0, as `ip -o` prints them */
  const addressesOn = async (attached: Attached) =>
    (await sandbox.exec(attached.ns, ['ip', '-4', '-o', 'addr', 'show', 'dev', 'eth0'])).stdout;

  beforeAll(async () => {
    if (process.getuid?.() !== 0) throw new Error('these tests make network namespaces: run them as root');
    execFileSync(process.execPath, ['scripts/build.js', '--if-changed'], { cwd: join(__dirname, '../../..'), stdio: 'inherit' });
    bin = cniBinDir();
    range = await unusedPrivateRange();
    Object.values(nodes).forEach((node) => sandbox.own(node.bridge));
    stack = await startKubernetesStack('kubevirt_migration', {
      kube: { bookmarkIntervalMs: 500, crds: ['virtualmachine', 'virtualmachineinstance', 'ipamclaim'] },
      api: { from: 'dist', env: { IPAM_POD_WAIT_MS: '5000' } },
      watcherEnv: { IPAM_WATCHER_TIMEOUT_SECONDS: '5', IPAM_WATCHER_RESYNC_SECONDS: '0' },
      async beforeWatcher({ kube, api }) {
        expect((await call(api.base, 'POST', '/v1/pools', { name: 'vms', cidr: `${range}.1.0/24`, gateway: `${range}.1.1` })).status).toBe(
          201,
        );
        for (const node of Object.values(nodes)) kube.upsert('node', { metadata: { name: node.name } });
      },
    });
    ({ kube, api } = stack);
  }, 120_000);

  afterAll(async () => {
    await sandbox.cleanup();
    await stack?.close();
    bin?.remove();
  });

  let source: Attached;
  let target: Attached;
  let vmi: KubeObject;

  it("the source's launcher on node A gets an address for the VM's claim, configured on its eth0", async () => {
    kube.upsert('virtualmachine', { metadata: { name: 'vm-m', namespace: 'vms' } });
    await eventually(
      () => get(claimPath),
      (res) => res.status === 200 && res.body.persistent === true,
      20_000,
    );
    vmi = kube.upsert('virtualmachineinstance', {
      metadata: {
        name: 'vm-m',
        namespace: 'vms',
        ownerReferences: [{ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', name: 'vm-m', uid: 'vm-m-uid', controller: true }],
      },
    });
    source = await attach(await launcher('virt-launcher-vm-m-src', nodes.a, vmi), nodes.a);
    expect(await addressesOn(source)).toContain(`inet ${source.address}`);
    const held = await get(claimPath);
    expect(held.body.items.map((item: { ip: string }) => item.ip)).toEqual([source.ip]);
    expect(await referencePods()).toEqual(['virt-launcher-vm-m-src']);
  });

  it("the migration's target launcher on node B gets the same address while the source holds it", async () => {
    target = await attach(await launcher('virt-launcher-vm-m-dst', nodes.b, vmi), nodes.b);
    expect(target.address).toBe(source.address);
    expect(await addressesOn(target)).toContain(`inet ${source.address}`);
    expect(await referencePods()).toEqual(['virt-launcher-vm-m-dst', 'virt-launcher-vm-m-src']);
  });

  it("the source's DEL leaves the address with the target, which answers on it", async () => {
    expect(await source.del()).toMatchObject({ status: 0 });
    kube.remove('pod', 'vms/virt-launcher-vm-m-src');
    expect(await referencePods()).toEqual(['virt-launcher-vm-m-dst']);
    expect((await get(`/v1/allocations/${encodeURIComponent(target.handle)}`)).body.items).toEqual([
      expect.objectContaining({ ip: source.ip, node: nodes.b.name, pod: 'virt-launcher-vm-m-dst' }),
    ]);
    // another pod on node B's bridge reaches the VM at its address: the plugin's result is what the target's eth0 carries
    const neighbour = await attach(await pod('neighbour', nodes.b), nodes.b);
    expect(neighbour.ip).not.toBe(source.ip);
    await sandbox.exec(neighbour.ns, ['ping', '-c', '1', '-W', '5', target.ip]);
  });

  it("deleting the VM releases the address, whose history shows the migration's references", async () => {
    expect(await target.del()).toMatchObject({ status: 0 });
    kube.remove('pod', 'vms/virt-launcher-vm-m-dst');
    kube.remove('virtualmachineinstance', 'vms/vm-m');
    // the claim keeps it with no launcher left: a restart would get it back
    await eventually(
      () => get(claimPath),
      (res) => res.body.references?.length === 0,
      20_000,
    );
    expect((await get(claimPath)).body.items.map((item: { ip: string }) => item.ip)).toEqual([source.ip]);
    kube.remove('virtualmachine', 'vms/vm-m');
    await eventually(
      () => get(claimPath),
      (res) => res.status === 404,
      20_000,
    );
    // only the neighbour's address is held
    expect((await get('/v1/pools/vms')).body.allocated).toBe('1');
    const history = (await get(`/v1/ips/${source.ip}/history`)).body.items;
    // the address's audit trail: held under the claim, each launcher's reference taken and dropped, released with the VM
    const src = { node: nodes.a.name, pod: 'virt-launcher-vm-m-src', handle: source.handle };
    const dst = { node: nodes.b.name, pod: 'virt-launcher-vm-m-dst', handle: target.handle };
    expect(history).toEqual(
      [
        { type: 'IpAllocated', handle: `@${claim}` },
        { type: 'ClaimReferenceAdded', claim, ...src },
        { type: 'ClaimReferenceAdded', claim, ...dst },
        { type: 'ClaimReferenceDropped', claim, ...src },
        { type: 'ClaimReferenceDropped', claim, ...dst },
        { type: 'IpReleased', handle: `@${claim}`, actor: 'watcher' },
      ].map((entry) => expect.objectContaining(entry)),
    );
  });
});
