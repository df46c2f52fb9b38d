/**
 * npm run bench:reuse-delay — what a reuse delay costs the allocation hot path, measured side by
 * side in one run (the load generator, the APIs and PostgreSQL share the machine's cores):
 *   R  = allocate+release pairs/s, 32 clients, in a pool with reuseDelaySeconds 60 ÷ the same in a
 *        plain pool (≥ 0.95): the cooling addresses pile up (every release cools one for a minute)
 *        and the chooser must not slow down for them
 * BENCH_ROUNDS (default 3) interleaved rounds of BENCH_SECONDS (default 5) each; medians compared.
 */
import { loadavg } from 'node:os';
import type { ApiProcess } from '../test/support/api-process';
import { call, expectStatus, freshDatabase, median, startApi, sustained } from './support';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const body = (handle: string, pool: string) => ({ handle, node: 'bench-node', namespace: 'bench', pod: handle, pools: [pool] });

async function allocate(api: ApiProcess, handle: string, pool: string): Promise<void> {
  expectStatus(await call(api.base, 'POST', '/v1/allocations', body(handle, pool)), 201, `allocate ${handle} in ${pool}`);
}

async function churn(api: ApiProcess, handle: string, pool: string): Promise<void> {
  await allocate(api, handle, pool);
  expectStatus(await call(api.base, 'DELETE', `/v1/allocations/${handle}`), 204, `release ${handle}`);
}

async function createPools(api: ApiProcess, pools: Array<Record<string, unknown>>): Promise<void> {
  for (const pool of pools) expectStatus(await call(api.base, 'POST', '/v1/pools', pool), 201, `create ${String(pool.name)}`);
}

const load = () =>
  loadavg()
    .map((n) => n.toFixed(1))
    .join(', ');

async function main(): Promise<void> {
  const db = await freshDatabase('reuse');
  const api = await startApi(db.url);
  try {
    await createPools(api, [
      { name: 'plain', cidr: '10.200.0.0/16' },
      { name: 'delayed', cidr: '10.201.0.0/16', reuseDelaySeconds: 60 },
    ]);
    // warm up (JIT, connections, caches)
    await sustained(2, 32, (i) => allocate(api, `w-${i}`, 'plain'));

    const figures: Record<'plain' | 'delayed', number[]> = { plain: [], delayed: [] };
    console.log(`load average at the start: ${load()}`);
    for (let round = 0; round < ROUNDS; round++) {
      figures.plain.push(await sustained(SECONDS, 32, (i) => churn(api, `p${round}-${i}`, 'plain')));
      figures.delayed.push(await sustained(SECONDS, 32, (i) => churn(api, `d${round}-${i}`, 'delayed')));
    }
    const m = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, median(v)])) as Record<keyof typeof figures, number>;
    const each = (v: number[]) => v.map((x) => x.toFixed(0)).join(', ');
    console.log(`load average at the end: ${load()}; ${ROUNDS} rounds of ${SECONDS} s, 32 clients each`);
    console.log(`  allocate+release pairs/s, plain pool             median ${m.plain.toFixed(0)} (${each(figures.plain)})`);
    console.log(`  allocate+release pairs/s, reuseDelaySeconds 60   median ${m.delayed.toFixed(0)} (${each(figures.delayed)})`);
    console.log('figures:');
    const R = m.delayed / m.plain;
    console.log(`  R  ${R.toFixed(2).padStart(6)}  target >= 0.95 ${R >= 0.95 ? 'met' : 'NOT met'}  pairs/s with a reuse delay / plain`);
  } finally {
    await api.stop();
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
