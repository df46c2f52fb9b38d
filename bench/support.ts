import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { call, startApiProcess, type ApiProcess } from '../test/support/api-process';
import { createTestDatabase } from '../test/support/test-database';

export { call };

/** A fresh migrated database a benchmark drops when done. */
export async function freshDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const db = await createTestDatabase(`bench_${name}`);
  return { url: db.url, drop: () => db.drop() };
}

/** The read models rebuilt from the log by the built CLI (`ipledger replay --rebuild`): after a seed wrote events straight into the store. */
export async function rebuildReadModels(url: string): Promise<void> {
  const { stdout } = await promisify(execFile)('node', [join(__dirname, '../dist/cli.js'), 'replay', '--rebuild'], {
    env: { ...process.env, DATABASE_URL: url },
    maxBuffer: 1 << 24,
  });
  if (!/events replayed/.test(stdout)) throw new Error(`replay --rebuild failed:\n${stdout}`);
}

/** The built API (run `npm run build` first) as its own process; BENCH_NODE_ARGS passes node flags (e.g. --cpu-prof). */
export function startApi(databaseUrl: string, env?: NodeJS.ProcessEnv, nodeArgs: string[] = []): Promise<ApiProcess> {
  return startApiProcess(databaseUrl, {
    from: 'dist',
    nodeArgs: [...nodeArgs, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)],
    env,
  });
}

/** An allocation request as the CNI plugin sends it, for one named pool. */
export const allocationBody = (handle: string, pool: string, node = 'bench-node') => ({
  handle,
  node,
  namespace: 'bench',
  pod: handle,
  pools: [pool],
});

/** POST /v1/allocations, expecting 201. */
export async function allocate(base: string, handle: string, pool: string, node?: string): Promise<void> {
  expectStatus(await call(base, 'POST', '/v1/allocations', allocationBody(handle, pool, node)), 201, `allocate ${handle} in ${pool}`);
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

/** Runs `task(i)` with `width` in flight for `seconds`; returns how many completed per second. */
export async function sustained(seconds: number, width: number, task: (i: number, worker: number) => Promise<void>): Promise<number> {
  return (await sustainedTimed(seconds, width, task)).perSecond;
}

/** `sustained`, with how many completed and each one's latency in ms. */
export async function sustainedTimed(
  seconds: number,
  width: number,
  task: (i: number, worker: number) => Promise<void>,
): Promise<{ perSecond: number; done: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: width }, async (_, worker) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        await task(next++, worker);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return { perSecond: latencies.length / ((performance.now() - started) / 1000), done: latencies.length, latencies };
}

/** Resident memory of a process, and its peak, in MiB (Linux). */
export function residentMiB(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
  return { now: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}
