/**
 * npm run bench:baseline — ipledger against the IPAM a team would write instead (issue 27):
 * bench/baseline/ (node:http, a `pg` pool of 32, one row per address, one statement per
 * allocation with its audit row). Both run as their own processes on the same PostgreSQL, each on
 * a fresh database, driven by the same node:http keep-alive load generator, in interleaved rounds
 * (the side that goes first alternates). For each load it prints each side's allocations/s, the
 * ratio ipledger ÷ baseline, p50 and p99, and CPU seconds per 1,000 allocations of the server and
 * of its PostgreSQL backends, read from /proc. Aims: B32 ≥ 1.5, B1 ≥ 0.8, B1p ≥ 2.0.
 * BENCH_SECONDS (default 5) a round, BENCH_ROUNDS (default 3); BENCH_LOADS (default B32,B1,B1p) picks
 * loads (BENCH_LOADS=B1 with BENCH_NODE_ARGS=--cpu-prof: a profile of the 1-client path alone);
 * BENCH_NODE_ARGS goes to ipledger's API.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Pool } from 'pg';
import { BASELINE_ADD_POOL, BASELINE_SCHEMA } from './baseline/baseline-schema';
import { CpuMeter, postgresBackends } from './process-cpu';
import { allocate, call, expectStatus, freshDatabase, median, ms, percentile, startApi, sustainedTimed } from './support';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** Each side's pools: a /19 per client of the spread load, a /16 for each one-pool load (enough for ROUNDS ≤ 6 here). */
const POOLS = [
  ...Array.from({ length: 32 }, (_, i) => ({ name: `b${i}`, cidr: `10.${100 + Math.floor(i / 8)}.${(i % 8) * 32}.0/19` })),
  { name: 'hot', cidr: '10.200.0.0/16' },
  { name: 'single', cidr: '10.201.0.0/16' },
  { name: 'warm', cidr: '10.202.0.0/18' },
];

const ALL_LOADS = [
  { ratio: 'B32', aim: 1.5, what: '32 clients over 32 pools', width: 32, pool: (worker: number) => `b${worker}` },
  { ratio: 'B1', aim: 0.8, what: '1 client', width: 1, pool: () => 'single' },
  { ratio: 'B1p', aim: 2.0, what: '32 clients into one pool', width: 32, pool: () => 'hot' },
] as const;
const LOADS = ALL_LOADS.filter((l) => (process.env.BENCH_LOADS ?? 'B32,B1,B1p').split(',').includes(l.ratio));

interface Side {
  name: 'ipledger' | 'baseline';
  base: string;
  server: CpuMeter;
  postgres: CpuMeter;
  stop(): Promise<void>;
}

interface Sample {
  perSecond: number;
  done: number;
  latencies: number[];
  serverCpu: number;
  postgresCpu: number;
}

const databaseName = (url: string) => new URL(url).pathname.slice(1);

async function startIpledger(url: string): Promise<Side> {
  const api = await startApi(url);
  try {
    for (const pool of POOLS) expectStatus(await call(api.base, 'POST', '/v1/pools', pool), 201, `create ${pool.name}`);
  } catch (err) {
    await api.stop();
    throw err;
  }
  return {
    name: 'ipledger',
    base: api.base,
    server: new CpuMeter(() => [api.pid]),
    postgres: new CpuMeter(() => postgresBackends(databaseName(url))),
    stop: () => api.stop(),
  };
}

async function startBaseline(url: string): Promise<Side> {
  const sql = new Pool({ connectionString: url, max: 1 });
  try {
    await sql.query(BASELINE_SCHEMA);
    for (const pool of POOLS) await sql.query(BASELINE_ADD_POOL, [pool.name, pool.cidr]);
    await sql.query('VACUUM ANALYZE addresses');
  } finally {
    await sql.end();
  }
  const child = spawn(process.execPath, ['-r', 'ts-node/register/transpile-only', join(__dirname, 'baseline/baseline-server.ts')], {
    env: { ...process.env, DATABASE_URL: url },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const [line] = (await Promise.race([once(lines, 'line'), once(child, 'exit').then(() => ['exited'])])) as [string];
  const port = /^listening (\d+)$/.exec(line)?.[1];
  if (!port) throw new Error(`the baseline server did not start: ${line}`);
  return {
    name: 'baseline',
    base: `http://127.0.0.1:${port}`,
    server: new CpuMeter(() => [child.pid!]),
    postgres: new CpuMeter(() => postgresBackends(databaseName(url))),
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

async function measure(side: Side, load: (typeof ALL_LOADS)[number], prefix: string): Promise<Sample> {
  side.server.start();
  side.postgres.start();
  const run = await sustainedTimed(SECONDS, load.width, (i, worker) => allocate(side.base, `${prefix}-${i}`, load.pool(worker)));
  return { ...run, serverCpu: side.server.stop(), postgresCpu: side.postgres.stop() };
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');

async function main(): Promise<void> {
  console.log(`load average at start: ${load()}`);
  const ipledgerDb = await freshDatabase('baseline_ipledger');
  const baselineDb = await freshDatabase('baseline_plain');
  const sides: Side[] = [];
  try {
    sides.push(await startIpledger(ipledgerDb.url));
    sides.push(await startBaseline(baselineDb.url));
    // warm both (JIT, plan caches, connection pools) on a pool no load uses
    for (const side of sides) await sustainedTimed(2, 32, (i) => allocate(side.base, `warm-${i}`, 'warm'));

    const samples = new Map<string, Sample[]>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const l of LOADS) {
        for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
          const key = `${side.name} ${l.ratio}`;
          samples.set(key, [...(samples.get(key) ?? []), await measure(side, l, `${l.ratio.toLowerCase()}-${round}`)]);
        }
      }
    }

    console.log(`${ROUNDS} interleaved rounds of ${SECONDS} s; allocations/s median (each round); latency over all rounds;`);
    console.log('CPU s per 1,000 allocations over all rounds (server process | its PostgreSQL backends)');
    const ratios: string[] = [];
    for (const l of LOADS) {
      console.log(`${l.what}:`);
      const rate: Record<string, number> = {};
      for (const side of sides) {
        const s = samples.get(`${side.name} ${l.ratio}`)!;
        const latencies = s.flatMap((x) => x.latencies);
        const done = s.reduce((n, x) => n + x.done, 0);
        const per1000 = (cpu: (x: Sample) => number) => ((1000 * s.reduce((n, x) => n + cpu(x), 0)) / done).toFixed(3);
        rate[side.name] = median(s.map((x) => x.perSecond));
        console.log(
          `  ${side.name.padEnd(9)} ${rate[side.name].toFixed(0).padStart(6)} /s (${s.map((x) => x.perSecond.toFixed(0)).join(', ')})` +
            `  p50 ${ms(percentile(latencies, 50))}  p99 ${ms(percentile(latencies, 99))}` +
            `  CPU s/1000: server ${per1000((x) => x.serverCpu)} | postgres ${per1000((x) => x.postgresCpu)}`,
        );
      }
      const ratio = rate.ipledger / rate.baseline;
      ratios.push(
        `  ${l.ratio.padEnd(4)} ${ratio.toFixed(2).padStart(6)}  aim >= ${l.aim.toFixed(1)}  ${ratio >= l.aim ? 'met    ' : 'NOT met'}  ${l.what}, ipledger ÷ baseline`,
      );
    }
    console.log('ratios:');
    for (const line of ratios) console.log(line);
    console.log(`load average at end: ${load()}`);
  } finally {
    for (const side of sides) await side.stop();
    await ipledgerDb.drop();
    await baselineDb.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
