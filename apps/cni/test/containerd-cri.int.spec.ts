import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { call, startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { DEBIAN_CNI_DIR, suffix, unusedPrivateRange } from '../../../test/support/cni-runner';
import { PrivateContainerd } from '../../../test/support/private-containerd';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';
import { installerSettings } from '../src/install/installer-settings';
import { NodeInstaller } from '../src/install/node-installer';

const ROOT = join(__dirname, '../../..');
/** runtime.v1 PodSandboxState */
const SANDBOX_NOTREADY = 1;

/**
 * Pods started as kubelet makes containerd start them: a private containerd 1.6 (its CRI plugin
 * speaks runtime.v1 over gRPC) whose CNI bin dir holds the built ipledger-ipam and Debian's bridge,
 * and whose conf dir holds the conflist the node installer renders from the shipped bridge template.
 * containerd's PATH, which the plugins inherit, has no node in it. Needs root (network namespaces).
 */
describe('containerd CRI with ipledger-ipam', () => {
  const id = suffix();
  const bridge = `iplcr${id}`;
  const node = `cri-node-${id}`;
  let work: string;
  let db: TestDatabase;
  let api: ApiProcess;
  let containerd: PrivateContainerd;
  let range: string;
  let namespacesBefore: string[];

  const pod = (name: string, namespace = 'default') => ({ name, namespace, uid: randomUUID() });
  const holding = async (sandboxId: string) => call(api.base, 'GET', `/v1/allocations/${encodeURIComponent(`${sandboxId}:eth0`)}`);

  /** The deploy ConfigMap's bridge template, on a bridge of this test's own, with no masquerade or portmap (no iptables here). */
  function template(): string {
    const configMap = parseAllDocuments(readFileSync(join(ROOT, 'deploy/cni-daemonset.yaml'), 'utf8'))
      .map((d) => d.toJS())
      .find((object) => object?.kind === 'ConfigMap');
    const conflist = JSON.parse(configMap.data['bridge.conflist.template']);
    conflist.name = `ipl-cri-${id}`;
    conflist.plugins = [
      {
        ...conflist.plugins[0],
        bridge,
        isGateway: false,
        ipMasq: false,
        ipam: { ...conflist.plugins[0].ipam, timeoutSeconds: 5, routes: [{ dst: `${range}.0.0/16` }] },
      },
    ];
    return JSON.stringify(conflist);
  }

  beforeAll(async () => {
    if (process.getuid?.() !== 0) throw new Error('containerd and its network namespaces need root');
    execFileSync(process.execPath, ['scripts/build.js', '--if-changed'], { cwd: ROOT, stdio: 'inherit' });
    work = mkdtempSync(join(tmpdir(), 'ipledger-cri-'));
    range = await unusedPrivateRange();
    namespacesBefore = PrivateContainerd.networkNamespaces();
    db = await createTestDatabase('containerd_cri');
    api = await startApiProcess(db.url, { from: 'source' });
    expect((await call(api.base, 'POST', '/v1/pools', { name: 'pods', cidr: `${range}.1.0/24`, gateway: `${range}.1.1` })).status).toBe(
      201,
    );

    // the node as the installer leaves it: the plugin in the bin dir, the conflist in the conf dir
    const binDir = join(work, 'opt/cni/bin');
    const netDir = join(work, 'etc/cni/net.d');
    writeFileSync(join(work, 'template'), template());
    const port = new URL(api.base).port;
    const settings = installerSettings(
      {
        IPAM_NODE_NAME: node,
        IPLEDGER_API_SERVICE_HOST: '127.0.0.1',
        IPLEDGER_API_SERVICE_PORT: port,
        IPAM_CNI_BIN_DIR: binDir,
        IPAM_CNI_NET_DIR: netDir,
        IPAM_CNI_HOST_NET_DIR: netDir,
        IPAM_CNI_TEMPLATE: join(work, 'template'),
        IPAM_CNI_TOKEN: '',
      },
      join(ROOT, 'dist/cni'),
    );
    new NodeInstaller(settings, () => undefined).install();
    for (const plugin of ['bridge', 'loopback']) symlinkSync(join(DEBIAN_CNI_DIR, plugin), join(binDir, plugin));
    containerd = await PrivateContainerd.start(binDir, netDir);
  }, 180_000);

  afterAll(async () => {
    await containerd?.stop();
    try {
      execFileSync('ip', ['link', 'del', bridge], { stdio: 'ignore' });
    } catch {
      // never made, or gone with its last port
    }
    await api?.stop();
    await db?.drop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('runs where no node is: containerd and the plugins it starts get a PATH without one', () => {
    const path = containerd.path.split(delimiter);
    expect(path.filter((dir) => existsSync(join(dir, 'node')))).toEqual([]);
    expect(readdirSync(containerd.path).sort()).toEqual(['containerd-shim-runc-v2', 'runc']);
    expect(readFileSync(join(containerd.cniConfDir, '10-ipledger.conflist'), 'utf8')).toContain(`"node": "${node}"`);
  });

  let first: { sandbox: string; ip: string };

  it('RunPodSandbox: the sandbox has the address the API holds for it, for the pod, namespace and uid containerd passed', async () => {
    const web = pod('frontend-7c9d', 'shop');
    const sandbox = await containerd.runPodSandbox(web);
    const ip = await containerd.sandboxIp(sandbox);
    const held = await holding(sandbox);
    expect(held.status).toBe(200);
    expect(held.body.items).toEqual([
      expect.objectContaining({
        ip,
        pool: 'pods',
        node,
        namespace: 'shop',
        pod: 'frontend-7c9d',
        podUid: web.uid,
        network: `ipl-cri-${id}`,
      }),
    ]);
    expect(ip).toMatch(new RegExp(`^${range.replace('.', '\\.')}\\.1\\.\\d+$`));
    first = { sandbox, ip };
  });

  it('a StatefulSet pod <name>-2 gets the range start + 2', async () => {
    const reservation = await call(api.base, 'PUT', '/v1/statefulsets/db/pg', { replicas: 3, pool: 'pods' });
    expect(reservation.status).toBe(200);
    const [a, b, c, start] = reservation.body.range.start.split('.').map(Number);
    const sandbox = await containerd.runPodSandbox(pod('pg-2', 'db'));
    expect(await containerd.sandboxIp(sandbox)).toBe(`${a}.${b}.${c}.${start + 2}`);
  });

  it('StopPodSandbox then RemovePodSandbox releases the address', async () => {
    await containerd.removePodSandbox(first.sandbox);
    expect((await holding(first.sandbox)).status).toBe(404);
    expect((await containerd.listPodSandboxes()).map((s) => s.id)).not.toContain(first.sandbox);
  });

  it('10 sandboxes started at once get 10 distinct addresses, each the one the API holds', async () => {
    const sandboxes = await Promise.all(Array.from({ length: 10 }, (_, i) => containerd.runPodSandbox(pod(`burst-${i}`))));
    const ips = await Promise.all(sandboxes.map((s) => containerd.sandboxIp(s)));
    expect(new Set(ips).size).toBe(10);
    const held = await Promise.all(sandboxes.map(async (s) => (await holding(s)).body.items[0].ip));
    expect(held).toEqual(ips);
    await Promise.all(sandboxes.map((s) => containerd.removePodSandbox(s)));
    for (const s of sandboxes) expect((await holding(s)).status).toBe(404);
  }, 180_000);

  it("with the API unreachable RunPodSandbox fails with the plugin's message; kubelet's clean-up of the failed sandbox leaves nothing", async () => {
    const sandboxesBefore = (await containerd.listPodSandboxes()).map((s) => s.id);
    const namespaces = PrivateContainerd.networkNamespaces();
    const { base } = api;
    await api.stop();
    await expect(containerd.runPodSandbox(pod('unlucky-1'))).rejects.toThrow(
      new RegExp(
        `plugin type="bridge" failed \\(add\\): the ipledger API at ${base.replace(/[.:/]/g, '\\$&')} is unavailable: .*try again later`,
      ),
    );
    // containerd keeps a sandbox whose network it could not tear down (the DEL met the same API), never a ready one
    const failed = (await containerd.listPodSandboxes()).filter((s) => !sandboxesBefore.includes(s.id));
    expect(failed.map((s) => [s.metadata.name, s.state])).toEqual(failed.map(() => ['unlucky-1', SANDBOX_NOTREADY]));
    // the API back where the node's config points (a new process, the same database); kubelet stops and removes the failed sandbox
    api = await startApiProcess(db.url, { from: 'source', env: { PORT: new URL(base).port } });
    for (const sandbox of failed) await containerd.removePodSandbox(sandbox.id);
    expect((await containerd.listPodSandboxes()).map((s) => s.id).sort()).toEqual([...sandboxesBefore].sort());
    expect(PrivateContainerd.networkNamespaces().filter((ns) => !namespaces.includes(ns))).toEqual([]);
    const allocations = await call(api.base, 'GET', '/v1/allocations?namespace=default&pod=unlucky-1');
    expect(allocations.status).toBe(200);
    expect(allocations.body.items).toEqual([]);
  }, 180_000);

  it('leaves no network namespace and no address once its sandboxes are removed', async () => {
    const sandboxes = await containerd.listPodSandboxes();
    expect(sandboxes.length).toBeGreaterThan(0);
    for (const sandbox of sandboxes) await containerd.removePodSandbox(sandbox.id);
    expect(PrivateContainerd.networkNamespaces().filter((ns) => !namespacesBefore.includes(ns))).toEqual([]);
    expect((await call(api.base, 'GET', `/v1/allocations?node=${node}`)).body.items).toEqual([]);
  });
});
