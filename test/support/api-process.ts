import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import { join } from 'node:path';
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
  stop(): Promise<void>;
  /** SIGKILL and wait: the process gets no chance to finish anything */
  kill(): Promise<void>;
  /** still running */
  alive(): boolean;
}

/**
 * The API as its own OS process, as an operator runs it: from dist/ (after `npm run build`, for
 * benchmarks) or from the sources through ts-node (for tests that need a second real replica).
 */
export async function startApiProcess(
  databaseUrl: string,
  options: { from: 'dist' | 'source'; nodeArgs?: string[]; env?: NodeJS.ProcessEnv },
): Promise<ApiProcess> {
  // a given PORT: a restarted API where its clients (a node's CNI config) already point
  const port = options.env?.PORT ? Number(options.env.PORT) : await freePort();
  const entry =
    options.from === 'dist'
      ? [join(ROOT, 'dist/api/main.js')]
      : ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', join(ROOT, 'apps/api/src/main.ts')];
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), ...entry], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      IPAM_TOKENS: '',
      IPAM_KUBERNETES_CONSUMER: 'off',
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode} (from ${options.from}: built?)`);
    if (i > 600) throw new Error('the API did not become ready within 60 s');
    const ready = await call(base, 'GET', '/readyz').catch(() => null);
    if (ready?.status === 200) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    pid: child.pid!,
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
