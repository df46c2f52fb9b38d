import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(__dirname, '../..');
export const PLUGIN_BUILD = join(ROOT, 'dist/cni/ipledger-ipam');
/** The same plugin as a node script (what the build made before the single executable): bench:cni compares the two. */
export const PLUGIN_SCRIPT = join(ROOT, 'dist/cni/ipledger-ipam.js');
/** A PATH as on a host without Node.js: the plugin needs none (and the system's tools a plugin may call are there). */
export const PATH_WITHOUT_NODE = '/usr/sbin:/sbin';
/** Where Debian's containernetworking-plugins puts bridge, host-local, ptp, ... */
export const DEBIAN_CNI_DIR = '/usr/lib/cni';

export interface CniCall {
  /** exit status */
  status: number;
  /** stdout parsed as JSON; null when empty */
  json: any;
  stdout: string;
  stderr: string;
}

/**
 * A CNI_PATH folder for one suite: a copy of the built ipledger-ipam (a copy anywhere must work)
 * and links to Debian's plugins.
 */
export function cniBinDir(): { dir: string; remove(): void } {
  const missing = [PLUGIN_BUILD, join(DEBIAN_CNI_DIR, 'bridge'), join(DEBIAN_CNI_DIR, 'host-local')].filter((f) => !existsSync(f));
  if (missing.length) throw new Error(`missing ${missing.join(', ')}: run npm run build, and apt-get install containernetworking-plugins`);
  const dir = mkdtempSync(join(tmpdir(), 'ipledger-cni-'));
  copyFileSync(PLUGIN_BUILD, join(dir, 'ipledger-ipam'));
  for (const plugin of ['bridge', 'host-local', 'ptp']) symlinkSync(join(DEBIAN_CNI_DIR, plugin), join(dir, plugin));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs one CNI plugin call: env per the CNI specification (PATH without node unless given), the config on stdin. */
export function cniCall(plugin: string, env: Record<string, string>, config: unknown, args: string[] = []): Promise<CniCall> {
  return new Promise((resolve, reject) => {
    const child = spawn(plugin, args, {
      env: { PATH: PATH_WITHOUT_NODE, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => {
      let json: unknown;
      try {
        json = stdout.trim() ? JSON.parse(stdout) : null;
      } catch {
        return reject(new Error(`${plugin}: stdout is not JSON: ${stdout}\nstderr: ${stderr}`));
      }
      resolve({ status: status ?? -1, json, stdout, stderr });
    });
    // a plugin may exit without reading stdin (VERSION): its exit status tells, not EPIPE
    child.stdin.on('error', () => undefined);
    child.stdin.end(config === undefined ? '' : JSON.stringify(config));
  });
}

/** A short random suffix: bridge names must fit in 15 characters. */
export const suffix = () => randomBytes(3).toString('hex');

/** Network namespaces and links a suite creates, removed by cleanup() whatever happened. */
export class NetworkSandbox {
  private readonly namespaces: string[] = [];
  private readonly links: string[] = [];

  async addNamespace(name: string): Promise<string> {
    await run('ip', ['netns', 'add', name]);
    this.namespaces.push(name);
    await run('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
    return `/var/run/netns/${name}`;
  }

  /** A link (the bridge) a plugin creates: removed at cleanup if still there. */
  own(link: string): void {
    this.links.push(link);
  }

  exec(namespace: string, command: string[]): Promise<{ stdout: string; stderr: string }> {
    return run('ip', ['netns', 'exec', namespace, ...command]);
  }

  async cleanup(): Promise<void> {
    for (const ns of this.namespaces.splice(0)) await run('ip', ['netns', 'del', ns]).catch(() => undefined);
    for (const link of this.links.splice(0)) await run('ip', ['link', 'del', link]).catch(() => undefined);
  }
}

/** The second octet of a 10.x.0.0/16 no route of this host uses yet, so test traffic stays on test links. */
export async function unusedPrivateRange(): Promise<string> {
  const { stdout } = await run('ip', ['-4', 'route', 'show', 'table', 'all']);
  for (let tries = 0; tries < 50; tries++) {
    const second = 100 + (randomBytes(1)[0] % 150);
    if (!stdout.includes(`10.${second}.`)) return `10.${second}`;
  }
  throw new Error('no free 10.x.0.0/16 range on this host');
}
