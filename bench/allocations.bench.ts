/**
 * npm run bench:alloc — the allocation engine's figures, each beside its target, measured in one
 * run on one machine (the load generator, the API and PostgreSQL share its cores):
 *   H   = allocations/s, 32 clients over 32 pools ÷ GET /healthz requests/s, 32 clients (≥ 0.6)
 *   P1  = allocations/s, 32 clients over 32 pools ÷ pgbench one-row INSERT TPS, 32 clients (≥ 0.15)
 *   P1s = allocations/s, 1 client ÷ pgbench TPS, 1 client (≥ 0.15)
 *   P5  = allocations/s, 32 clients into one pool ÷ the same over 32 pools (≥ 0.95)
 *   P4  = allocate+release latency in a pool with 1,000,000 events of history ÷ in a new pool (≤ 1.2)
 *   P7  = the API's resident memory with 10,000 pools and 1,000,000 held allocations (≤ 512 MiB)
 *   B   = allocations/s, 32 clients for 100 nodes into a pool with /26 blocks ÷ the same into a
 *         plain pool (≥ 1/1.2: blocks cost at most a fifth)
 * BENCH_ONLY=throughput skips P4 and P7 (their seeding takes minutes).
 * Throughputs are BENCH_ROUNDS (default 3) interleaved rounds of BENCH_SECONDS (default 5) each;
 * the medians are compared. P4 and P7 seed their history straight into the event store (SQL) and
 * build the read models with `ipledger replay --rebuild`, then go through the API.
 * BENCH_NODE_ARGS passes node flags to the API (e.g. --cpu-prof); BENCH_HEAP_MIB (default 384) is
 * the P4/P7 API's --max-old-space-size, as deploy/api-deployment.yaml sets it (NODE_OPTIONS).
 * BENCH_FLEET=1 (npm run bench:alloc:fleet): instead, allocations for 100,000 nodes in 100 clusters
 * against the same in one cluster, in one run (bench/fleet.ts): throughput and latency at 32
 * clients and at 1, BENCH_ROUNDS (default 4) rounds alternating the layouts.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'pg';
import {
  allocate,
  call,
  expectStatus,
  freshDatabase,
  median,
  ms,
  rebuildReadModels,
  residentMiB,
  startApi,
  sustained,
  sustainedTimed,
  timed,
} from './support';
import { allocateOn, alternate, describeLayouts, FLEET, latencyLine, loadAverage, perLayout, withLayouts } from './fleet';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (FLEET ? 4 : 3));
const HISTORY_EVENTS = Number(process.env.BENCH_HISTORY_EVENTS ?? 1_000_000);
const MANY_POOLS = Number(process.env.BENCH_POOLS ?? 10_000);
const HELD = Number(process.env.BENCH_HELD ?? 1_000_000);
/** the API's V8 heap for P4 and P7, as deploy/api-deployment.yaml sets it for its 512 MiB limit */
const HEAP_MIB = Number(process.env.BENCH_HEAP_MIB ?? 384);
const run = promisify(execFile);

/** pgbench's one-row INSERT TPS at `clients` against the bench's database. */
async function pgbench(url: string, clients: number): Promise<number> {
  const script = join(tmpdir(), `ipledger-pgbench-${process.pid}.sql`);
  writeFileSync(script, 'INSERT INTO pgbench_one_row DEFAULT VALUES;\n');
  const threads = String(Math.min(clients, cpus().length));
  const { stdout } = await run('pgbench', ['-n', '-f', script, '-c', String(clients), '-j', threads, '-T', String(SECONDS), url]);
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
  if (!tps) throw new Error(`unexpected pgbench output:\n${stdout}`);
  return Number(tps[1]);
}

async function throughput(): Promise<{ H: number; P1: number; P1s: number; P5: number; B: number; lines: string[] }> {
  const db = await freshDatabase('alloc');
  const api = await startApi(db.url);
  try {
    const sql = new Pool({ connectionString: db.url, max: 1 });
    await sql.query('CREATE TABLE pgbench_one_row (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())');
    await sql.end();
    const pools = Array.from({ length: 32 }, (_, i) => ({ name: `b${i}`, cidr: `10.${100 + i}.0.0/16` }));
    pools.push({ name: 'hot', cidr: '10.200.0.0/16' }, { name: 'single', cidr: '10.201.0.0/16' }, { name: 'warm', cidr: '10.202.0.0/16' });
    pools.push({ name: 'nodes-plain', cidr: '10.203.0.0/16' }, {
      name: 'nodes-blocks',
      cidr: '10.204.0.0/16',
      blockSize: 26,
    } as (typeof pools)[0]);
    for (const pool of pools) expectStatus(await call(api.base, 'POST', '/v1/pools', pool), 201, `create ${pool.name}`);
    await sustained(2, 32, (i) => allocate(api.base, `w-${i}`, 'warm'));

    const figures: Record<'healthz' | 'spread' | 'hot' | 'one' | 'pg32' | 'pg1' | 'plain100' | 'blocks100', number[]> = {
      healthz: [],
      spread: [],
      hot: [],
      one: [],
      pg32: [],
      pg1: [],
      plain100: [],
      blocks100: [],
    };
    for (let round = 0; round < ROUNDS; round++) {
      figures.healthz.push(await sustained(SECONDS, 32, async () => expectStatus(await call(api.base, 'GET', '/healthz'), 200, 'healthz')));
      figures.spread.push(await sustained(SECONDS, 32, (i, worker) => allocate(api.base, `s${round}-${i}`, `b${worker}`)));
      figures.hot.push(await sustained(SECONDS, 32, (i) => allocate(api.base, `h${round}-${i}`, 'hot')));
      figures.one.push(await sustained(SECONDS, 1, (i) => allocate(api.base, `o${round}-${i}`, 'single')));
      figures.pg32.push(await pgbench(db.url, 32));
      figures.pg1.push(await pgbench(db.url, 1));
      // 100 nodes, as a cluster's CNI plugins are: a node claims a new /26 each time its blocks fill
      figures.plain100.push(await sustained(SECONDS, 32, (i) => allocate(api.base, `np${round}-${i}`, 'nodes-plain', `node-${i % 100}`)));
      figures.blocks100.push(await sustained(SECONDS, 32, (i) => allocate(api.base, `nb${round}-${i}`, 'nodes-blocks', `node-${i % 100}`)));
    }
    const m = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, median(v)])) as Record<keyof typeof figures, number>;
    const each = (v: number[]) => v.map((x) => x.toFixed(0)).join(', ');
    const lines = [
      `throughput (${ROUNDS} interleaved rounds of ${SECONDS} s; median, then each round):`,
      `  GET /healthz, 32 clients                  ${m.healthz.toFixed(0)} requests/s (${each(figures.healthz)})`,
      `  allocations, 32 clients over 32 pools     ${m.spread.toFixed(0)} /s (${each(figures.spread)})`,
      `  allocations, 32 clients into one pool     ${m.hot.toFixed(0)} /s (${each(figures.hot)})`,
      `  allocations, 1 client                     ${m.one.toFixed(0)} /s (${each(figures.one)})`,
      `  pgbench one-row INSERT, 32 clients        ${m.pg32.toFixed(0)} TPS (${each(figures.pg32)})`,
      `  pgbench one-row INSERT, 1 client          ${m.pg1.toFixed(0)} TPS (${each(figures.pg1)})`,
      `  allocations, 100 nodes, plain pool        ${m.plain100.toFixed(0)} /s (${each(figures.plain100)})`,
      `  allocations, 100 nodes, /26 blocks        ${m.blocks100.toFixed(0)} /s (${each(figures.blocks100)})`,
    ];
    return { H: m.spread / m.healthz, P1: m.spread / m.pg32, P1s: m.one / m.pg1, P5: m.hot / m.spread, B: m.blocks100 / m.plain100, lines };
  } finally {
    await api.stop();
    await db.drop();
  }
}

/**
 * A pool `aged` with HISTORY_EVENTS events (allocate+release pairs), and MANY_POOLS pools holding
 * HELD addresses between them, written straight into the event store in version order (the hash
 * chain trigger links every row); the read models are then rebuilt from the log by the CLI.
 */
async function seed(url: string): Promise<void> {
  const sql = new Pool({ connectionString: url, max: 1 });
  const perPool = Math.ceil(HELD / MANY_POOLS);
  const pairs = Math.floor((HISTORY_EVENTS - 1) / 2);
  const holder = `'node', 'bench-node', 'namespace', 'bench', 'pod', h, 'podUid', null`;
  const created = (name: string, cidr: string) =>
    `jsonb_build_object('name', ${name}, 'cidr', ${cidr}, 'family', 4, 'gateway', null, 'labels', '{}'::jsonb, 'nodeSelector', null, 'reserved', '[]'::jsonb, 'disabled', false)`;
  try {
    await sql.query(`INSERT INTO events (stream_id, version, event_id, type, schema_version, data)
      VALUES ('pool-aged', 1, gen_random_uuid(), 'PoolCreated', 1, ${created("'aged'", "'10.250.0.0/16'")})`);
    await sql.query(
      `INSERT INTO events (stream_id, version, event_id, type, schema_version, data)
       SELECT 'pool-aged', 2 + 2 * j + r, gen_random_uuid(), CASE r WHEN 0 THEN 'IpAllocated' ELSE 'IpReleased' END, 1 + r,
              CASE r WHEN 0 THEN jsonb_build_object('pool', 'aged', 'ip', '10.250.0.1', 'family', 4, 'handle', h, ${holder})
                     ELSE jsonb_build_object('pool', 'aged', 'ip', '10.250.0.1', 'handle', h, 'node', 'bench-node', 'namespace', 'bench', 'pod', h) END
       FROM generate_series(0, $1::int - 1) j, generate_series(0, 1) r, LATERAL (SELECT 'old-' || j AS h) x
       ORDER BY j, r`,
      [pairs],
    );
    // and its latest snapshot, as the API writes one every 200 events (every address released)
    await sql.query(
      `INSERT INTO stream_snapshots (stream_id, version, state)
       VALUES ('pool-aged', 1 + 2 * $1::int, jsonb_build_object('name', 'aged', 'created', ${created("'aged'", "'10.250.0.0/16'")}, 'ranges', '[]'::jsonb, 'holders', '[]'::jsonb))`,
      [pairs],
    );
    const cidr = `'10.' || (i / 256) || '.' || (i % 256) || '.0/24'`;
    await sql.query(
      `INSERT INTO events (stream_id, version, event_id, type, schema_version, data)
       SELECT 'pool-m' || i, 1, gen_random_uuid(), 'PoolCreated', 1, ${created("'m' || i", cidr)}
       FROM generate_series(0, $1::int - 1) i ORDER BY i`,
      [MANY_POOLS],
    );
    await sql.query(
      `INSERT INTO events (stream_id, version, event_id, type, schema_version, data)
       SELECT 'pool-m' || i, 1 + k, gen_random_uuid(), 'IpAllocated', 1,
              jsonb_build_object('pool', 'm' || i, 'ip', '10.' || (i / 256) || '.' || (i % 256) || '.' || k, 'family', 4, 'handle', h, ${holder})
       FROM generate_series(0, $1::int - 1) i, generate_series(1, $2::int) k, LATERAL (SELECT 'm' || i || '-' || k AS h) x
       ORDER BY i, k`,
      [MANY_POOLS, perPool],
    );
  } finally {
    await sql.end();
  }
  await rebuildReadModels(url);
}

async function historyAndMemory(): Promise<{ P4: number; P7: number; lines: string[] }> {
  const db = await freshDatabase('alloc_big');
  try {
    const seeding = performance.now();
    await seed(db.url);
    const seeded = (performance.now() - seeding) / 1000;
    // as deploy/ runs it (NODE_OPTIONS in api-deployment.yaml): a heap sized to the 512 MiB limit;
    // unlimited, V8 lets the garbage of 10,000 first loads pile up towards a gigabyte first
    const api = await startApi(db.url, undefined, [`--max-old-space-size=${HEAP_MIB}`]);
    try {
      expectStatus(await call(api.base, 'POST', '/v1/pools', { name: 'fresh', cidr: '10.251.0.0/16' }), 201, 'create fresh');
      const pair = (pool: string, handle: string) => async () => {
        await allocate(api.base, handle, pool);
        expectStatus(await call(api.base, 'DELETE', `/v1/allocations/${handle}`), 204, 'release');
      };
      // the first load of `aged` reads its snapshot and a short tail
      await pair('aged', 'a-warm')();
      await pair('fresh', 'f-warm')();
      const fresh: number[] = [];
      const aged: number[] = [];
      // interleaved, so drift on a shared machine hits both alike
      for (let i = 0; i < 300; i++) {
        fresh.push(...(await timed(1, 1, pair('fresh', `f-${i}`))).latencies);
        aged.push(...(await timed(1, 1, pair('aged', `a-${i}`))).latencies);
      }
      // every pool's aggregate loaded through the API: one more address in each
      const touching = performance.now();
      await timed(MANY_POOLS, 32, (i) => allocate(api.base, `touch-${i}`, `m${i}`));
      const touched = (performance.now() - touching) / 1000;
      const memory = residentMiB(api.pid);
      return {
        P4: median(aged) / median(fresh),
        P7: memory.now,
        lines: [
          `history and memory (seeded ${HISTORY_EVENTS} + ${MANY_POOLS + HELD} events through SQL and rebuilt in ${seeded.toFixed(0)} s):`,
          `  allocate+release, new pool               median ${ms(median(fresh))} (300 pairs)`,
          `  allocate+release, pool with ${HISTORY_EVENTS} events median ${ms(median(aged))} (300 pairs, interleaved)`,
          `  ${MANY_POOLS} pools holding ${HELD} addresses, each loaded by an allocation (${touched.toFixed(1)} s):`,
          `  API resident memory ${memory.now.toFixed(0)} MiB (peak ${memory.peak.toFixed(0)} MiB; node --max-old-space-size=${HEAP_MIB})`,
        ],
      };
    } finally {
      await api.stop();
    }
  } finally {
    await db.drop();
  }
}

/** Allocations (pools by the node's label) at 32 clients and at 1, nodes spread over the 100,000, fleet vs single. */
async function fleet(): Promise<void> {
  const loadBefore = loadAverage();
  const rate = perLayout();
  const latency = perLayout();
  const one = perLayout();
  await withLayouts(async (layouts) => {
    for (const layout of layouts) await sustained(2, 32, (i) => allocateOn(layout, `warm-${i}`, i * 7919));
    await alternate(layouts, ROUNDS, async (layout, r) => {
      // a prime stride: consecutive requests land on nodes of different clusters and groups
      const many = await sustainedTimed(SECONDS, 32, (i) => allocateOn(layout, `m${r}-${i}`, (r * 100_003 + i) * 7919));
      rate[layout.name].push(many.perSecond);
      latency[layout.name].push(...many.latencies);
      one[layout.name].push(
        ...(await sustainedTimed(SECONDS, 1, (i) => allocateOn(layout, `o${r}-${i}`, (r * 100_003 + i) * 7919))).latencies,
      );
    });
  });
  const each = (v: number[]) => v.map((x) => x.toFixed(0)).join(', ');
  console.log(`fleet: ${describeLayouts()}; ${ROUNDS} alternating rounds (A B B A ...) of ${SECONDS} s`);
  console.log(
    `  allocations/s, 32 clients               fleet ${median(rate.fleet).toFixed(0)} (${each(rate.fleet)}) | single ${median(rate.single).toFixed(0)} (${each(rate.single)}) | fleet/single ${(median(rate.fleet) / median(rate.single)).toFixed(2)} (target >= 1/1.2)`,
  );
  console.log(latencyLine('allocation latency, 32 clients', latency));
  console.log(latencyLine('allocation latency, 1 client', one));
  console.log(`load average (1, 5, 15 min): ${loadBefore} at the start, ${loadAverage()} at the end`);
}

async function main(): Promise<void> {
  if (FLEET) return fleet();
  const t = await throughput();
  const h = process.env.BENCH_ONLY === 'throughput' ? null : await historyAndMemory();
  for (const line of [...t.lines, ...(h?.lines ?? [])]) console.log(line);
  const row = (name: string, value: number, target: string, met: boolean, what: string) =>
    console.log(`  ${name.padEnd(4)} ${value.toFixed(2).padStart(7)}  target ${target.padEnd(8)} ${met ? 'met    ' : 'NOT met'}  ${what}`);
  console.log('figures:');
  row('H', t.H, '>= 0.6', t.H >= 0.6, 'allocations/s (32 clients, 32 pools) / GET /healthz requests/s (32 clients)');
  row('P1', t.P1, '>= 0.15', t.P1 >= 0.15, 'allocations/s (32 clients, 32 pools) / pgbench INSERT TPS (32 clients)');
  row('P1s', t.P1s, '>= 0.15', t.P1s >= 0.15, 'allocations/s (1 client) / pgbench INSERT TPS (1 client)');
  row('P5', t.P5, '>= 0.95', t.P5 >= 0.95, 'allocations/s (32 clients, one pool) / (32 clients, 32 pools)');
  row('B', t.B, '>= 0.83', t.B >= 1 / 1.2, 'allocations/s (32 clients, 100 nodes), pool with /26 blocks / plain pool');
  if (!h) return;
  row('P4', h.P4, '<= 1.2', h.P4 <= 1.2, `allocate+release latency, ${HISTORY_EVENTS}-event pool / new pool`);
  row('P7', h.P7, '<= 512', h.P7 <= 512, `API resident MiB, ${MANY_POOLS} pools, ${HELD} held allocations`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
