import { runMigrations } from '@ipledger/event-store';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';

const SERVER = process.env.BENCH_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';
const MAIN = join(__dirname, '../dist/apps/api/apps/api/src/main.js');

export async function freshDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const db = `ipledger_bench_${name}_${randomBytes(3).toString('hex')}`;
  const url = `${SERVER}/${db}`;
  await runMigrations(url, join(__dirname, '../migrations'));
  return {
    url,
    async drop() {
      const admin = new Client({ connectionString: `${SERVER}/postgres` });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/** The built API as its own process (run `npm run build` first), as an operator would run it. */
export async function startApi(databaseUrl: string): Promise<{ base: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), MAIN], {
    env: { ...process.env, PORT: String(port), DATABASE_URL: databaseUrl, IPAM_TOKENS: '' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode}; did you run npm run build?`);
    try {
      if ((await call(base, 'GET', '/readyz')).status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

// node:http with keep-alive: the client's own cost per request stays well under the server's
// (global fetch adds about a millisecond a request on this machine)
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      base + path,
      { method, agent, headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export function expectStatus(res: { status: number; body: unknown }, status: number, what: string): void {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export const median = (samples: number[]) => percentile(samples, 50);
export const ms = (n: number) => `${n.toFixed(2)} ms`;

/** Runs `task(i)` for i in [0, count) with at most `width` in flight; returns each task's latency in ms. */
export async function timed(
  count: number,
  width: number,
  task: (i: number) => Promise<void>,
): Promise<{ latencies: number[]; seconds: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) {
        const i = next++;
        const t0 = performance.now();
        await task(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { latencies, seconds: (performance.now() - started) / 1000 };
}
