import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@ipledger/messaging';
import { startFakeKubeApi, type FakeKubeApi } from '../../../test/support/fake-kube-api';
import { startTestApi, type TestApi } from '../../../test/support/test-api';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { eventually } from '../../../test/support/eventually';
import { startWatcherProcess, type WatcherProcess } from '../../../test/support/watcher-process';

/**
 * A KubeVirt VM keeps its address through restart and live migration, end to end: the fake API
 * server (serving KubeVirt's and IPAMClaim's kinds) -> the watcher process -> NATS -> the API's
 * consumer; the CNI ADDs and DELs as the plugin sends them (POST/DELETE /v1/allocations).
 */
describe('KubeVirt VMs and IPAMClaims (fake Kubernetes API, watcher, real NATS and Postgres)', () => {
  let dir: string;
  let kube: FakeKubeApi;
  let bus: TestBus;
  let api: TestApi;
  let watcher: WatcherProcess;

  const claimPath = (name: string) => `/v1/claims/${encodeURIComponent(name)}`;
  const get = (path: string) => api.http().get(path);
  const until = (path: string, done: (res: { status: number; body: any }) => boolean) =>
    eventually(() => get(path), done, 20_000, `${path} to become as expected`);
  const vmi = (name: string) =>
    kube.upsert('virtualmachineinstance', {
      metadata: {
        name,
        namespace: 'vms',
        ownerReferences: [{ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', name, uid: `vm-${name}`, controller: true }],
      },
    });
  const launcher = (owner: KubeObject, pod: string, node: string, annotations: Record<string, string> = {}) =>
    kube.upsert('pod', {
      metadata: {
        name: pod,
        namespace: 'vms',
        labels: { 'kubevirt.io': 'virt-launcher' },
        annotations,
        ownerReferences: [
          {
            apiVersion: 'kubevirt.io/v1',
            kind: 'VirtualMachineInstance',
            name: owner.metadata.name,
            uid: owner.metadata.uid,
            controller: true,
          },
        ],
      },
      spec: { nodeName: node },
    });
  /** the CNI plugin's ADD for the pod's interface */
  const add = (pod: KubeObject, ifname: string, network: string, pools: string[]) =>
    api
      .http()
      .post('/v1/allocations')
      .send({
        handle: `${pod.metadata.uid.slice(0, 12)}:${ifname}`,
        node: pod.spec?.nodeName,
        namespace: 'vms',
        pod: pod.metadata.name,
        podUid: pod.metadata.uid,
        network,
        pools,
      });
  const del = (pod: KubeObject, ifname: string) =>
    api.http().delete(`/v1/allocations/${encodeURIComponent(`${pod.metadata.uid.slice(0, 12)}:${ifname}`)}`);
  const ipOf = (res: { body: { items: Array<{ ip: string }> } }) => res.body.items.map((item) => item.ip);
  const referencePods = (res: { body: { references: Array<{ pod: string }> } }) => res.body.references.map((r) => r.pod).sort();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kubevirt-e2e-'));
    kube = await startFakeKubeApi({ bookmarkIntervalMs: 500, crds: ['virtualmachine', 'virtualmachineinstance', 'ipamclaim'] });
    bus = await createTestBus('kubevirt');
    api = await startTestApi('kubevirt_e2e', { env: { ...bus.env, IPAM_POD_WAIT_MS: '20000' } });
    await api.http().post('/v1/pools').send({ name: 'pods', cidr: '10.80.0.0/24' }).expect(201);
    await api.http().post('/v1/pools').send({ name: 'tenantred', cidr: '10.81.0.0/24', network: 'tenantred' }).expect(201);
    for (const node of ['worker-1', 'worker-2']) kube.upsert('node', { metadata: { name: node } });
    watcher = await startWatcherProcess({ ...bus.env, KUBECONFIG: kube.writeKubeconfig(dir), IPAM_WATCHER_TIMEOUT_SECONDS: '2' });
  });
  afterAll(async () => {
    await watcher?.stop();
    await api?.close();
    await bus?.close();
    await kube?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps a VM its address through live migration and restart, and releases it with the VM', async () => {
    const claim = 'kubevirt:default:vms:vm-a';
    kube.upsert('virtualmachine', { metadata: { name: 'vm-a', namespace: 'vms' } });
    await until(claimPath(claim), (res) => res.status === 200 && res.body.persistent === true);
    const instance = vmi('vm-a');
    const source = launcher(instance, 'virt-launcher-vm-a-src', 'worker-1');
    const first = await add(source, 'eth0', 'k8s-pod-network', ['pods']).expect(201);
    const [address] = ipOf(first);
    expect(first.body.items[0]).toMatchObject({ claim, pool: 'pods' });

    // live migration: the target's launcher on another node gets the same address while the source holds it
    const target = launcher(instance, 'virt-launcher-vm-a-dst', 'worker-2');
    expect(ipOf(await add(target, 'eth0', 'k8s-pod-network', ['pods']).expect(200))).toEqual([address]);
    expect(referencePods(await get(claimPath(claim)).expect(200))).toEqual(['virt-launcher-vm-a-dst', 'virt-launcher-vm-a-src']);
    // the source's DEL and its pod's deletion leave the address with the target
    await del(source, 'eth0').expect(204);
    kube.remove('pod', 'vms/virt-launcher-vm-a-src');
    expect(referencePods(await get(claimPath(claim)).expect(200))).toEqual(['virt-launcher-vm-a-dst']);
    expect(ipOf(await get(`/v1/allocations/${encodeURIComponent(`${target.metadata.uid.slice(0, 12)}:eth0`)}`).expect(200))).toEqual([
      address,
    ]);

    // restart: the instance and its launcher go (no DEL: the pod's deletion drops its reference), the VM's claim keeps the address
    kube.remove('pod', 'vms/virt-launcher-vm-a-dst');
    kube.remove('virtualmachineinstance', 'vms/vm-a');
    const stopped = await until(claimPath(claim), (res) => res.body.references?.length === 0);
    expect(stopped.body.items.map((item: { ip: string }) => item.ip)).toEqual([address]);
    const again = launcher(vmi('vm-a'), 'virt-launcher-vm-a-new', 'worker-1');
    // another pod's ADD meanwhile does not get it
    const other = kube.upsert('pod', { metadata: { name: 'web', namespace: 'vms' }, spec: { nodeName: 'worker-1' } });
    expect(ipOf(await add(other, 'eth0', 'k8s-pod-network', ['pods']).expect(201))).not.toEqual([address]);
    // the claim holds it: answered as a claim's existing address
    expect(ipOf(await add(again, 'eth0', 'k8s-pod-network', ['pods']).expect(200))).toEqual([address]);

    // deleting the VM releases it
    kube.remove('virtualmachine', 'vms/vm-a');
    await until(claimPath(claim), (res) => res.status === 404);
    const history = (await get(`/v1/ips/${address}/history`).expect(200)).body.items;
    expect(history.at(-1)).toMatchObject({ type: 'IpReleased' });
  });

  it("gives an IPAMClaim's attachment its claim's address, kept across pods, released with the IPAMClaim", async () => {
    const claim = 'ipamclaim:default:vms:vm-b.tenantred';
    kube.upsert('ipamclaim', {
      metadata: { name: 'vm-b.tenantred', namespace: 'vms' },
      spec: { network: 'tenantred', interface: 'podabc' },
    });
    await until(claimPath(claim), (res) => res.status === 200 && res.body.network === 'tenantred');
    const networks = JSON.stringify([
      { name: 'tenantred', namespace: 'nets', interface: 'podabc', 'ipam-claim-reference': 'vm-b.tenantred' },
    ]);
    const pod = (name: string) =>
      kube.upsert('pod', {
        metadata: { name, namespace: 'vms', annotations: { 'k8s.v1.cni.cncf.io/networks': networks } },
        spec: { nodeName: 'worker-1' },
      });
    const first = pod('vm-b-1');
    const held = await add(first, 'podabc', 'tenantred', ['tenantred']).expect(201);
    expect(held.body.items[0]).toMatchObject({ claim, pool: 'tenantred' });
    // the pod's primary interface is an ordinary attachment
    expect((await add(first, 'eth0', 'k8s-pod-network', ['pods']).expect(201)).body.items[0].claim).toBeUndefined();
    kube.remove('pod', 'vms/vm-b-1');
    await until(claimPath(claim), (res) => res.body.references?.length === 0);
    expect(ipOf(await add(pod('vm-b-2'), 'podabc', 'tenantred', ['tenantred']).expect(200))).toEqual(ipOf(held));
    kube.remove('ipamclaim', 'vms/vm-b.tenantred');
    await until(claimPath(claim), (res) => res.status === 404);
  });
});
