import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freePort } from './free-port';

const ROOT = join(__dirname, '../..');

// node:http with keep-alive: the client's own cost per request stays well under the server's
// (global fetch adds about a millisecond a request on this machine)
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const headers = payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {};
    const req = http.request(base + path, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

export interface ApiProcess {
  base: string;
  /** the API's process id (a benchmark reads its resident memory) */
  pid: number;
  /** every line it printed (stdout and stderr), for assertions on its logs */
  lines: string[];
  stop(): Promise<void>;
  /** SIGKILL and wait: the process gets no chance to finish anything */
  kill(): Promise<void>;
  /** still running */
  alive(): boolean;
}

export interface ApiProcessOptions {
  from: 'dist' | 'source';
  nodeArgs?: string[];
  env?: NodeJS.ProcessEnv;
  /** the path that must answer 200 before startApiProcess resolves: /readyz (default), /healthz for an API up but not ready */
  until?: string;
  /** another checkout to run (the previous release's sources, say) */
  root?: string;
}

/** Spawns the API (not waiting for anything) and collects its lines; stderr is also passed on, as a failing test's clue. */
async function spawnApi(databaseUrl: string, options: ApiProcessOptions): Promise<{ child: ChildProcess; port: number; lines: string[] }> {
  // a given PORT: a restarted API where its clients (a node's CNI config) already point
  const port = options.env?.PORT ? Number(options.env.PORT) : await freePort();
  const root = options.root ?? ROOT;
  const entry =
    options.from === 'dist'
      ? [join(root, 'dist/api/main.js')]
      : ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', join(root, 'apps/api/src/main.ts')];
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), ...entry], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      IPAM_TOKENS: '',
      IPAM_KUBERNETES_CONSUMER: 'off',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
  createInterface({ input: child.stderr! }).on('line', (line) => {
    lines.push(line);
    process.stderr.write(`${line}\n`);
  });
  return { child, port, lines };
}

/**
 * The API as its own OS process, as an operator runs it: from dist/ (after `npm run build`, for
 * benchmarks) or from the sources through ts-node (for tests that need a second real replica).
 */
export async function startApiProcess(databaseUrl: string, options: ApiProcessOptions): Promise<ApiProcess> {
  const { child, port, lines } = await spawnApi(databaseUrl, options);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode} (from ${options.from}: built?)`);
    if (i > 600) throw new Error(`the API did not answer ${options.until ?? '/readyz'} within 60 s`);
    const ready = await call(base, 'GET', options.until ?? '/readyz').catch(() => null);
    if (ready?.status === 200) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    pid: child.pid!,
    lines,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await once(child, 'exit');
    },
    alive: () => child.exitCode === null && child.signalCode === null,
  };
}

/** Runs the API until it exits by itself (a start-up it must refuse): its exit code and lines; killed after `timeoutMs`. */
export async function runApiUntilExit(
  databaseUrl: string,
  options: ApiProcessOptions & { timeoutMs?: number },
): Promise<{ code: number | null; lines: string[] }> {
  const { child, lines } = await spawnApi(databaseUrl, options);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  // 'close' comes after the last line of its output, 'exit' may come before
  const [code] = (await once(child, 'close')) as [number | null];
  clearTimeout(timer);
  return { code, lines };
}
