import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

const run = promisify(execFile);
/** runtime.v1 of kubernetes/cri-api, vendored (test/support/cri/README.md) */
const CRI_PROTO = join(__dirname, 'cri/api.proto');
/** The sandbox ("pause") image, built here: nothing can be pulled. */
export const SANDBOX_IMAGE = 'ipledger.test/pause:1';
const BUSYBOX = '/bin/busybox';
/** What containerd and its shims may run: the runtime and its shim, and no node. */
const CONTAINERD_TOOLS = ['/usr/bin/containerd-shim-runc-v2', '/usr/sbin/runc'];

type Callback = (err: grpc.ServiceError | null, reply: any) => void;
type Client = grpc.Client & Record<string, (request: object, options: grpc.CallOptions, callback: Callback) => void>;

export interface PodSandboxConfig {
  name: string;
  namespace: string;
  uid: string;
}

/**
 * A private containerd (Debian's 1.6, CRI built in) as kubelet uses it: its own root, state, socket
 * and config in a temp folder, the CNI bin and conf dirs given, a PATH without node, and the CRI
 * gRPC API (runtime.v1) to drive it. stop() ends it by pid and removes what it made.
 */
export class PrivateContainerd {
  readonly dir: string;
  readonly socket: string;
  readonly path: string;
  private child?: ChildProcess;
  private client?: Client;
  private log = '';

  private constructor(
    readonly cniBinDir: string,
    readonly cniConfDir: string,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), 'ipledger-containerd-'));
    this.socket = join(this.dir, 'containerd.sock');
    this.path = join(this.dir, 'path');
  }

  static async start(cniBinDir: string, cniConfDir: string): Promise<PrivateContainerd> {
    const containerd = new PrivateContainerd(cniBinDir, cniConfDir);
    try {
      await containerd.boot();
      return containerd;
    } catch (err) {
      await containerd.stop();
      throw err;
    }
  }

  /** What containerd has logged: for failure messages. */
  get output(): string {
    return this.log;
  }

  private config(): string {
    const d = this.dir;
    return `version = 2
root = "${d}/root"
state = "${d}/state"
oom_score = 0
[grpc]
  address = "${this.socket}"
[ttrpc]
  address = "${this.socket}.ttrpc"
[debug]
  level = "info"
[metrics]
  address = ""
[plugins."io.containerd.internal.v1.opt"]
  path = "${d}/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "${SANDBOX_IMAGE}"
  # root here lacks CAP_SYS_RESOURCE: CRI's default oom_score_adj for a sandbox is refused
  restrict_oom_score_adj = true
  disable_apparmor = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "${this.cniBinDir}"
    conf_dir = "${this.cniConfDir}"
    max_conf_num = 1
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
`;
  }

  private async boot(): Promise<void> {
    const missing = ['/usr/bin/containerd', '/usr/bin/ctr', BUSYBOX, ...CONTAINERD_TOOLS].filter((f) => !existsSync(f));
    if (missing.length) throw new Error(`missing ${missing.join(', ')}: apt-get install containerd busybox-static`);
    mkdirSync(this.path);
    for (const tool of CONTAINERD_TOOLS) symlinkSync(tool, join(this.path, tool.split('/').pop()!));
    writeFileSync(join(this.dir, 'config.toml'), this.config());
    this.child = spawn('/usr/bin/containerd', ['--config', join(this.dir, 'config.toml')], {
      env: { PATH: this.path },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    const deadline = Date.now() + 30_000;
    while (!existsSync(this.socket)) {
      if (this.child.exitCode !== null || Date.now() > deadline) throw new Error(`containerd did not start:\n${this.log}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await this.importSandboxImage();
    const definition = protoLoader.loadSync(CRI_PROTO, { keepCase: true, longs: String, enums: Number, defaults: true });
    const runtimeV1 = (grpc.loadPackageDefinition(definition).runtime as any).v1;
    this.client = new runtimeV1.RuntimeService(`unix://${this.socket}`, grpc.credentials.createInsecure()) as Client;
    const version = await this.call('Version', {});
    if (version.runtime_api_version !== 'v1') throw new Error(`containerd speaks CRI ${version.runtime_api_version}, not v1`);
  }

  /**
   * A busybox-static rootfs that sleeps, as a docker image archive: a layer, its config, the
   * manifest naming SANDBOX_IMAGE, loaded with `ctr images import` into CRI's namespace k8s.io.
   */
  private async importSandboxImage(): Promise<void> {
    const image = join(this.dir, 'image');
    const rootfs = join(image, 'rootfs');
    mkdirSync(join(rootfs, 'bin'), { recursive: true });
    copyFileSync(BUSYBOX, join(rootfs, 'bin/busybox'));
    chmodSync(join(rootfs, 'bin/busybox'), 0o755);
    await run('tar', ['--numeric-owner', '--owner=0', '--group=0', '-C', rootfs, '-cf', join(image, 'layer.tar'), '.']);
    const { stdout } = await run('sha256sum', [join(image, 'layer.tar')]);
    const diffId = `sha256:${stdout.split(' ')[0]}`;
    const config = JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: { Entrypoint: ['/bin/busybox', 'sleep', '2147483647'], WorkingDir: '/' },
      rootfs: { type: 'layers', diff_ids: [diffId] },
    });
    const configName = `${createHash('sha256').update(config).digest('hex')}.json`;
    writeFileSync(join(image, configName), config);
    writeFileSync(join(image, 'manifest.json'), JSON.stringify([{ Config: configName, RepoTags: [SANDBOX_IMAGE], Layers: ['layer.tar'] }]));
    await run('tar', ['-C', image, '-cf', join(image, 'image.tar'), 'manifest.json', configName, 'layer.tar']);
    await run(
      '/usr/bin/ctr',
      ['-a', this.socket, '-n', 'k8s.io', 'images', 'import', '--snapshotter', 'native', join(image, 'image.tar')],
      {
        env: { PATH: this.path },
      },
    );
  }

  /** One CRI call; a gRPC error rejects with its details (what kubelet would log). */
  call(method: string, request: object, timeoutMs = 120_000): Promise<any> {
    return new Promise((resolve, reject) =>
      this.client![method](request, { deadline: Date.now() + timeoutMs }, (err, reply) => (err ? reject(err) : resolve(reply))),
    );
  }

  /** RunPodSandbox as kubelet asks for a pod on the pod network; the sandbox's id. */
  async runPodSandbox(pod: PodSandboxConfig): Promise<string> {
    const logs = join(this.dir, 'pods', pod.uid);
    mkdirSync(logs, { recursive: true });
    const reply = await this.call('RunPodSandbox', {
      config: {
        metadata: { name: pod.name, uid: pod.uid, namespace: pod.namespace, attempt: 0 },
        hostname: pod.name,
        log_directory: logs,
        labels: { 'io.kubernetes.pod.name': pod.name, 'io.kubernetes.pod.namespace': pod.namespace },
        linux: { security_context: { namespace_options: { network: 0, pid: 0, ipc: 0 } } },
      },
    });
    return reply.pod_sandbox_id;
  }

  async sandboxIp(id: string): Promise<string> {
    const { status } = await this.call('PodSandboxStatus', { pod_sandbox_id: id });
    return status.network.ip;
  }

  /** StopPodSandbox then RemovePodSandbox, as kubelet does when a pod goes. */
  async removePodSandbox(id: string): Promise<void> {
    await this.call('StopPodSandbox', { pod_sandbox_id: id });
    await this.call('RemovePodSandbox', { pod_sandbox_id: id });
  }

  async listPodSandboxes(): Promise<any[]> {
    return (await this.call('ListPodSandbox', {})).items;
  }

  /** The network namespaces containerd holds (CRI's netns are files under /var/run/netns named cni-<uuid>). */
  static networkNamespaces(): string[] {
    return existsSync('/var/run/netns') ? readdirSync('/var/run/netns').filter((name) => name.startsWith('cni-')) : [];
  }

  /** The network namespace file of a sandbox, from its verbose status (the runtime spec containerd keeps). */
  private async networkNamespaceOf(id: string): Promise<string | undefined> {
    const { info } = await this.call('PodSandboxStatus', { pod_sandbox_id: id, verbose: true });
    const spec = JSON.parse(info?.info ?? '{}').runtimeSpec;
    return spec?.linux?.namespaces?.find((ns: { type: string }) => ns.type === 'network')?.path;
  }

  /**
   * Every sandbox removed, containerd and its shims ended by pid, the network namespaces of
   * sandboxes it could not remove deleted by name, the folder removed: even after a failure.
   */
  async stop(): Promise<void> {
    const namespaces: string[] = [];
    if (this.client) {
      try {
        for (const sandbox of await this.listPodSandboxes()) {
          const netns = await this.networkNamespaceOf(sandbox.id).catch(() => undefined);
          if (netns) namespaces.push(netns);
          await this.removePodSandbox(sandbox.id).catch(() => undefined);
        }
      } catch {
        // containerd is already gone
      }
      this.client.close();
      this.client = undefined;
    }
    const shims = await shimPids(this.socket);
    if (this.child && this.child.exitCode === null) {
      this.child.kill('SIGTERM');
      const exited = once(this.child, 'exit');
      const timer = setTimeout(() => this.child?.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    for (const pid of shims) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // ended with containerd
      }
    }
    for (const netns of namespaces.filter((file) => existsSync(file))) {
      await run('umount', [netns]).catch(() => undefined);
      rmSync(netns, { force: true });
    }
    // the native snapshotter's and the shims' mounts under the folder, if any are left
    await run('sh', ['-c', `grep -o ' ${this.dir}[^ ]*' /proc/mounts | sort -r | xargs -r -n1 umount -l`]).catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The shims of this containerd: they name its socket in their command line. */
async function shimPids(socket: string): Promise<number[]> {
  const { stdout } = await run('ps', ['-eo', 'pid=,args=']).catch(() => ({ stdout: '' }));
  return stdout
    .split('\n')
    .filter((line) => line.includes('containerd-shim') && line.includes(socket))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}
