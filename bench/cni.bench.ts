/**
 * npm run bench:cni — what a pod start and stop cost through CNI: ADD then DEL through Debian's
 * bridge plugin into one network namespace, first with ipledger-ipam (against the built API) and
 * then with Debian's host-local, in the same run; the plugin's size and start-up (VERSION), as the
 * single executable, as the node script it is made of, and host-local's; and pod sandboxes started
 * and removed through containerd's CRI, as kubelet does, with either IPAM (a private containerd each).
 * Needs root (ip netns), containernetworking-plugins, containerd and busybox-static.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { cniBinDir, cniCall, DEBIAN_CNI_DIR, NetworkSandbox, PLUGIN_SCRIPT, suffix, unusedPrivateRange } from '../test/support/cni-runner';
import { PrivateContainerd } from '../test/support/private-containerd';
import { call, expectStatus, freshDatabase, median, ms, percentile, startApi } from './support';

const execFileAsync = promisify(execFile);
const ROUNDS = Number(process.env.BENCH_CNI_ROUNDS ?? 100);
const WARM_UP = 5;
const VERSION_CALLS = Number(process.env.BENCH_CNI_VERSION_CALLS ?? 50);
const CRI_PODS = Number(process.env.BENCH_CNI_CRI_PODS ?? 50);

interface Figures {
  add: number[];
  del: number[];
}

/** ADD then DEL of one attachment, `rounds` times, into the same namespace; the first WARM_UP rounds are not counted. */
async function addDelRounds(bridgePlugin: string, env: Record<string, string>, config: object, rounds: number): Promise<Figures> {
  const figures: Figures = { add: [], del: [] };
  for (let i = 0; i < WARM_UP + rounds; i++) {
    const id = `bench${i}`;
    const callEnv = { ...env, CNI_CONTAINERID: id, CNI_ARGS: `IgnoreUnknown=1;K8S_POD_NAMESPACE=bench;K8S_POD_NAME=pod-${i}` };
    let t0 = performance.now();
    const add = await cniCall(bridgePlugin, { ...callEnv, CNI_COMMAND: 'ADD' }, config);
    const addMs = performance.now() - t0;
    if (add.status !== 0) throw new Error(`ADD failed: ${add.stdout} ${add.stderr}`);
    t0 = performance.now();
    const del = await cniCall(bridgePlugin, { ...callEnv, CNI_COMMAND: 'DEL' }, config);
    const delMs = performance.now() - t0;
    if (del.status !== 0) throw new Error(`DEL failed: ${del.stdout} ${del.stderr}`);
    if (i >= WARM_UP) {
      figures.add.push(addMs);
      figures.del.push(delMs);
    }
  }
  return figures;
}

async function versionTimes(plugin: string, args: string[] = []): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < WARM_UP + VERSION_CALLS; i++) {
    const t0 = performance.now();
    const outcome = await cniCall(plugin, { CNI_COMMAND: 'VERSION' }, { cniVersion: '1.0.0' }, args);
    if (outcome.status !== 0) throw new Error(`VERSION failed: ${outcome.stdout}`);
    if (i >= WARM_UP) times.push(performance.now() - t0);
  }
  return times;
}

/**
 * Why the plugin speaks node:http and not fetch: one GET /healthz from a fresh node process with
 * each client (and an empty process for reference), interleaved so the machine's noise hits all alike.
 */
async function httpClientStartUp(base: string): Promise<Record<string, number[]>> {
  const scripts: Record<string, string> = {
    'node -e 0': '0',
    'node:http GET': `require('node:http').get('${base}/healthz', (r) => { r.resume(); r.on('end', () => process.exit(0)); })`,
    'fetch GET': `fetch('${base}/healthz').then((r) => r.text()).then(() => process.exit(0))`,
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(scripts).map((k) => [k, []]));
  for (let i = 0; i < VERSION_CALLS; i++) {
    for (const [name, script] of Object.entries(scripts)) {
      const t0 = performance.now();
      await execFileAsync(process.execPath, ['-e', script]);
      times[name].push(performance.now() - t0);
    }
  }
  return times;
}

interface CriFigures {
  oneAtATime: number[];
  atOnce: number[];
  removal: number[];
}

/** A private containerd whose only CNI config is `plugins` (bridge + the IPAM under test); its bin dir is the suite's. */
async function criNode(binDir: string, name: string, plugin: object): Promise<PrivateContainerd> {
  const confDir = mkdtempSync(join(tmpdir(), `cri-conf-${name}-`));
  writeFileSync(join(confDir, `10-${name}.conflist`), JSON.stringify({ cniVersion: '1.0.0', name, plugins: [plugin] }));
  return PrivateContainerd.start(binDir, confDir);
}

/**
 * RunPodSandbox timed, CRI_PODS sandboxes one at a time (each stopped and removed before the next)
 * and CRI_PODS at once; the two runtimes' one-at-a-time rounds interleave, so the machine's noise hits both alike.
 */
async function criRounds(nodes: Record<string, PrivateContainerd>): Promise<Record<string, CriFigures>> {
  const figures: Record<string, CriFigures> = Object.fromEntries(
    Object.keys(nodes).map((name) => [name, { oneAtATime: [], atOnce: [], removal: [] }]),
  );
  const start = async (node: PrivateContainerd, name: string) => {
    const t0 = performance.now();
    const id = await node.runPodSandbox({ name, namespace: 'bench', uid: randomUUID() });
    return { id, ms: performance.now() - t0 };
  };
  for (let i = 0; i < WARM_UP + CRI_PODS; i++) {
    for (const [name, node] of Object.entries(nodes)) {
      const { id, ms: runMs } = await start(node, `pod-${i}`);
      const t0 = performance.now();
      await node.removePodSandbox(id);
      if (i < WARM_UP) continue;
      figures[name].oneAtATime.push(runMs);
      figures[name].removal.push(performance.now() - t0);
    }
  }
  for (const [name, node] of Object.entries(nodes)) {
    const started = await Promise.all(Array.from({ length: CRI_PODS }, (_, i) => start(node, `burst-${i}`)));
    figures[name].atOnce = started.map((s) => s.ms);
    await Promise.all(started.map((s) => node.removePodSandbox(s.id)));
  }
  return figures;
}

const line = (what: string, samples: number[]) =>
  `${what.padEnd(44)} p50 ${ms(median(samples)).padStart(10)}  p99 ${ms(percentile(samples, 99)).padStart(10)}`;

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('bench:cni makes network namespaces: run it as root');
  const id = suffix();
  const sandbox = new NetworkSandbox();
  const bin = cniBinDir();
  symlinkSync(join(DEBIAN_CNI_DIR, 'loopback'), join(bin.dir, 'loopback'));
  const criNodes: PrivateContainerd[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'host-local-'));
  const db = await freshDatabase('cni');
  const api = await startApi(db.url);
  try {
    const range = await unusedPrivateRange();
    const bridge = `iplbb${id}`;
    sandbox.own(bridge);
    const netns = await sandbox.addNamespace(`ipl-bench-${id}`);
    expectStatus(
      await call(api.base, 'POST', '/v1/pools', { name: 'bench', cidr: `${range}.0.0/17`, gateway: `${range}.0.1` }),
      201,
      'pool',
    );
    const env = { CNI_NETNS: netns, CNI_IFNAME: 'eth0', CNI_PATH: bin.dir };
    const network = (ipam: object) => ({
      cniVersion: '1.0.0',
      name: `bench-${id}`,
      type: 'bridge',
      bridge,
      isGateway: false,
      ipMasq: false,
      ipam,
    });

    const ipledger = await addDelRounds(
      join(bin.dir, 'bridge'),
      env,
      network({ type: 'ipledger-ipam', url: api.base, node: 'bench-node', pools: ['bench'] }),
      ROUNDS,
    );
    const hostLocal = await addDelRounds(
      join(bin.dir, 'bridge'),
      env,
      network({ type: 'host-local', dataDir, ranges: [[{ subnet: `${range}.128.0/17`, gateway: `${range}.128.1` }]] }),
      ROUNDS,
    );
    const ipledgerVersion = await versionTimes(join(bin.dir, 'ipledger-ipam'));
    const scriptVersion = await versionTimes(process.execPath, [PLUGIN_SCRIPT]);
    const hostLocalVersion = await versionTimes(join(bin.dir, 'host-local'));
    const clients = await httpClientStartUp(api.base);
    // the API's own share: the same requests from this process over a kept-alive connection
    const direct: Figures = { add: [], del: [] };
    for (let i = 0; i < ROUNDS; i++) {
      const handle = `direct-${i}:eth0`;
      let t0 = performance.now();
      const request = { handle, node: 'bench-node', namespace: 'bench', pod: `direct-${i}`, network: `bench-${id}`, pools: ['bench'] };
      expectStatus(await call(api.base, 'POST', '/v1/allocations', request), 201, 'allocate');
      direct.add.push(performance.now() - t0);
      t0 = performance.now();
      expectStatus(await call(api.base, 'DELETE', `/v1/allocations/${encodeURIComponent(handle)}`), 204, 'release');
      direct.del.push(performance.now() - t0);
    }

    // CRI: the same pool and host-local range, on bridges of their own
    const bridgePlugin = (name: string, ipam: object) => ({
      type: 'bridge',
      bridge: `iplb${name[0]}${id}`,
      isGateway: false,
      ipMasq: false,
      ipam,
    });
    for (const name of ['ipledger', 'hostlocal']) sandbox.own(`iplb${name[0]}${id}`);
    const hostLocalData = join(dataDir, 'cri');
    mkdirSync(hostLocalData);
    criNodes.push(
      await criNode(
        bin.dir,
        `ipledger-${id}`,
        bridgePlugin('ipledger', { type: 'ipledger-ipam', url: api.base, node: 'bench-node', pools: ['bench'] }),
      ),
      await criNode(
        bin.dir,
        `hostlocal-${id}`,
        bridgePlugin('hostlocal', {
          type: 'host-local',
          dataDir: hostLocalData,
          ranges: [[{ subnet: `${range}.128.0/17`, gateway: `${range}.128.1` }]],
        }),
      ),
    );
    const cri = await criRounds({ 'ipledger-ipam': criNodes[0], 'host-local': criNodes[1] });

    console.log(`bench:cni — ${ROUNDS} ADD+DEL rounds each through the bridge plugin, one at a time (after ${WARM_UP} not counted)`);
    console.log(line('ADD  ipledger-ipam', ipledger.add));
    console.log(line('ADD  host-local', hostLocal.add));
    console.log(line('DEL  ipledger-ipam', ipledger.del));
    console.log(line('DEL  host-local', hostLocal.del));
    console.log(`ADD p50 ratio ipledger-ipam / host-local: ${(median(ipledger.add) / median(hostLocal.add)).toFixed(2)}`);
    console.log(`DEL p50 ratio ipledger-ipam / host-local: ${(median(ipledger.del) / median(hostLocal.del)).toFixed(2)}`);
    console.log(line('API POST /v1/allocations', direct.add) + '   (from this process, keep-alive)');
    console.log(line('API DELETE /v1/allocations', direct.del));
    const size = (file: string) => {
      const bytes = statSync(file).size;
      return bytes < 1 << 20 ? `${(bytes / 1024).toFixed(0)} KiB` : `${(bytes / (1 << 20)).toFixed(1)} MiB`;
    };
    console.log(line('VERSION ipledger-ipam', ipledgerVersion) + `   (the single executable, ${size(join(bin.dir, 'ipledger-ipam'))})`);
    console.log(line('VERSION node ipledger-ipam.js', scriptVersion) + `   (the node script, ${size(PLUGIN_SCRIPT)} + node)`);
    console.log(line('VERSION host-local', hostLocalVersion) + `   (${size(join(DEBIAN_CNI_DIR, 'host-local'))})`);
    for (const [name, samples] of Object.entries(clients)) console.log(line(`process with ${name}`, samples));
    console.log(`ADD p50 ${median(ipledger.add) < 60 ? 'meets' : 'misses'} the 60 ms aim`);
    console.log(
      `CRI (private containerd, bridge): RunPodSandbox of ${CRI_PODS} pod sandboxes one at a time (each removed next), and ${CRI_PODS} at once`,
    );
    for (const mode of ['oneAtATime', 'atOnce', 'removal'] as const) {
      const what = {
        oneAtATime: 'RunPodSandbox one at a time',
        atOnce: `RunPodSandbox ${CRI_PODS} at once`,
        removal: 'Stop+RemovePodSandbox',
      }[mode];
      for (const [name, figures] of Object.entries(cri)) console.log(line(`${what} ${name}`, figures[mode]));
      const ratio = median(cri['ipledger-ipam'][mode]) / median(cri['host-local'][mode]);
      console.log(
        `${what}: p50 ratio ipledger-ipam / host-local ${ratio.toFixed(2)}${mode === 'removal' ? '' : ratio <= 1.3 ? ' (meets the 1.3 aim)' : ' (misses the 1.3 aim)'}`,
      );
    }
  } finally {
    for (const node of criNodes) {
      await node.stop();
      rmSync(node.cniConfDir, { recursive: true, force: true });
    }
    await sandbox.cleanup();
    await api.stop();
    await db.drop();
    bin.remove();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
