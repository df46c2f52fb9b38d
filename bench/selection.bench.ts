/**
 * npm run bench:selection — label-indexed pool selection against the seed's way (list every pool
 * page by page and filter on the client), at 100, 10,000 and 100,000 /26 pools; and the pool
 * annotation path (a pod whose `ipam.ipledger.io/pools` names its node's group, in an annotated
 * namespace) side by side with the matchLabel path, requests interleaved.
 * BENCH_FLEET=1 (npm run bench:selection:fleet): instead, pool choice and allocate+release for
 * 100,000 nodes in 100 clusters against the same in one cluster, in one run (bench/fleet.ts);
 * BENCH_ROUNDS (default 4) alternating rounds of BENCH_REQUESTS / rounds requests a layout.
 */
import { Pool } from 'pg';
import { loadConfig } from '../apps/api/src/config';
import { createApp } from '../apps/api/src/create-app';
import { GROUP_SIZE, poolName, seedPools } from '../test/support/seed-pools';
import { allocateOn, alternate, describeLayouts, FLEET, latencyLine, loadAverage, perLayout, releaseOn, withLayouts } from './fleet';
import { call, expectStatus, freshDatabase, median, ms, percentile, startApi } from './support';

const SIZES = (process.env.BENCH_SIZES ?? '100,10000,100000').split(',').map(Number);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 500);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);

const timeOne = async (work: () => Promise<void>) => {
  const t0 = performance.now();
  await work();
  return performance.now() - t0;
};

interface Figures {
  pools: number;
  /** GET /healthz: the floor any request pays on this machine (HTTP, Nest, the client) */
  floor: number[];
  select: number[];
  /** the same selection chosen by the pod's annotation (GET /v1/nodes/{n}/pools?namespace=&pod=), interleaved with `select` */
  annotated: number[];
  pair: number[];
  listFilter: number[];
}

async function seed(url: string, pools: number): Promise<number> {
  const t0 = performance.now();
  const app = await createApp(loadConfig({ DATABASE_URL: url, IPAM_KUBERNETES_CONSUMER: 'off' }), { logger: false });
  await app.init();
  await seedPools(app, pools);
  await app.close();
  const db = new Pool({ connectionString: url });
  await seedAnnotatedPods(db, Math.ceil(pools / GROUP_SIZE));
  // what autovacuum would do on a live database: give the planner statistics
  await db.query('ANALYZE pools; ANALYZE pool_labels; ANALYZE nodes; ANALYZE kubernetes_objects');
  await db.end();
  return (performance.now() - t0) / 1000;
}

/**
 * One pod a group, `bench/p-<group>`, annotated with its group's pool names, and the namespace
 * `bench` annotated too, as the Kubernetes consumer records what the watcher sends (its own rows,
 * written here directly: the consumer's work is not what this measures).
 */
async function seedAnnotatedPods(db: Pool, groups: number): Promise<void> {
  const rows: Array<{ kind: string; key: string; annotations: Record<string, string> }> = [
    { kind: 'namespace', key: 'bench', annotations: { 'ipam.ipledger.io/match-label': 'pool-group' } },
  ];
  for (let g = 0; g < groups; g++) {
    const names = Array.from({ length: GROUP_SIZE }, (_, k) => poolName(g * GROUP_SIZE + k));
    rows.push({ kind: 'pod', key: `bench/p-${g}`, annotations: { 'ipam.ipledger.io/pools': names.join(',') } });
  }
  await db.query(
    `INSERT INTO kubernetes_objects (kind, key, uid, resource_version, stream_sequence, deleted, status, object)
     SELECT r.kind, r.key, md5(r.key), '1', 1, false, 'seen',
            jsonb_build_object('metadata', jsonb_build_object('name', split_part(r.key, '/', 2), 'annotations', r.annotations))
       FROM jsonb_to_recordset($1) AS r(kind text, key text, annotations jsonb)`,
    [JSON.stringify(rows)],
  );
}

async function measure(pools: number): Promise<Figures> {
  const db = await freshDatabase(`sel_${pools}`);
  const seconds = await seed(db.url, pools);
  console.error(`  seeded ${pools} pools in ${seconds.toFixed(1)} s`);
  const api = await startApi(db.url);
  try {
    const groups = Math.ceil(pools / GROUP_SIZE);
    const group = (i: number) => (i * 7919) % groups;
    const node = (i: number) => `node-${group(i)}`;
    const figures: Figures = { pools, floor: [], select: [], annotated: [], pair: [], listFilter: [] };
    // warm up the server's JIT and every connection's prepared statements before measuring
    for (let i = 0; i < WARMUP; i++) {
      await call(api.base, 'GET', '/healthz');
      await call(api.base, 'GET', `/v1/nodes/${node(i)}/pools?matchLabel=pool-group`);
      await call(api.base, 'GET', `/v1/nodes/${node(i)}/pools?namespace=bench&pod=p-${group(i)}`);
      if (i % 10 === 0) await call(api.base, 'GET', `/v1/pools?limit=500`);
      if (i % 10 === 0) await call(api.base, 'DELETE', `/v1/allocations/warm-${i}`);
    }
    for (let i = 0; i < REQUESTS; i++) {
      figures.floor.push(await timeOne(async () => expectStatus(await call(api.base, 'GET', '/healthz'), 200, 'healthz')));
    }
    for (let i = 0; i < REQUESTS; i++) {
      figures.select.push(
        await timeOne(async () => {
          const res = await call(api.base, 'GET', `/v1/nodes/${node(i)}/pools?matchLabel=pool-group`);
          expectStatus(res, 200, 'select');
          if (res.body.items.length === 0) throw new Error(`no pools for ${node(i)}`);
        }),
      );
      figures.annotated.push(
        await timeOne(async () => {
          const res = await call(api.base, 'GET', `/v1/nodes/${node(i)}/pools?namespace=bench&pod=p-${group(i)}`);
          expectStatus(res, 200, 'select by annotation');
          if (res.body.items.length !== GROUP_SIZE) throw new Error(`the annotation of p-${group(i)} chose ${res.body.items.length} pools`);
        }),
      );
    }
    for (let i = 0; i < REQUESTS; i++) {
      figures.pair.push(
        await timeOne(async () => {
          const body = { handle: `b-${i}`, node: node(i), namespace: 'bench', pod: `b-${i}`, matchLabel: 'pool-group' };
          expectStatus(await call(api.base, 'POST', '/v1/allocations', body), 201, 'allocate');
          expectStatus(await call(api.base, 'DELETE', `/v1/allocations/b-${i}`), 204, 'release');
        }),
      );
    }
    // today's behaviour in the seed: page through every pool (limit=500) and filter on the client
    const rounds = pools >= 100_000 ? 3 : pools >= 10_000 ? 10 : 50;
    for (let i = 0; i < rounds; i++) {
      const group = (await call(api.base, 'GET', `/v1/nodes/${node(i)}`)).body.labels['pool-group'];
      figures.listFilter.push(
        await timeOne(async () => {
          const mine = [];
          let token: string | null = null;
          do {
            const res = await call(api.base, 'GET', `/v1/pools?limit=500${token ? `&continue=${token}` : ''}`);
            expectStatus(res, 200, 'list');
            mine.push(...res.body.items.filter((p: { labels: Record<string, string> }) => p.labels['pool-group'] === group));
            token = res.body.continue;
          } while (token);
          if (mine.length === 0) throw new Error('list-and-filter found nothing');
        }),
      );
    }
    return figures;
  } finally {
    await api.stop();
    await db.drop();
  }
}

/** Pool choice (GET .../nodes/{n}/pools?matchLabel=) and allocate+release for nodes spread over the 100,000, fleet vs single. */
async function fleet(): Promise<void> {
  const select = perLayout();
  const pair = perLayout();
  const perRound = Math.ceil(REQUESTS / ROUNDS);
  // a prime stride: consecutive requests land on nodes of different clusters and groups
  const nodeAt = (k: number) => k * 7919;
  const loadBefore = loadAverage();
  await withLayouts(async (layouts) => {
    for (const layout of layouts) {
      for (let k = 0; k < WARMUP; k++) {
        const { prefix, name } = layout.node(nodeAt(k));
        await call(layout.api.base, 'GET', `${prefix}/nodes/${name}/pools?matchLabel=pool-group`);
        if (k % 10 === 0) await allocateOn(layout, `warm-${k}`, nodeAt(k)).then(() => releaseOn(layout, `warm-${k}`, nodeAt(k)));
      }
    }
    await alternate(layouts, ROUNDS, async (layout, r) => {
      for (let k = r * perRound; k < (r + 1) * perRound; k++) {
        const { prefix, name } = layout.node(nodeAt(k));
        select[layout.name].push(
          await timeOne(async () => {
            const res = await call(layout.api.base, 'GET', `${prefix}/nodes/${name}/pools?matchLabel=pool-group`);
            expectStatus(res, 200, `select (${layout.name})`);
            if (res.body.items.length !== GROUP_SIZE) throw new Error(`${prefix}/nodes/${name}: ${res.body.items.length} pools`);
          }),
        );
        pair[layout.name].push(
          await timeOne(() => allocateOn(layout, `f-${k}`, nodeAt(k)).then(() => releaseOn(layout, `f-${k}`, nodeAt(k)))),
        );
      }
    });
  });
  console.log(`fleet: ${describeLayouts()}; ${ROUNDS} alternating rounds (A B B A ...), requests one at a time`);
  console.log(latencyLine('pool choice (matchLabel)', select));
  console.log(latencyLine('allocate+release (matchLabel)', pair));
  console.log(`load average (1, 5, 15 min): ${loadBefore} at the start, ${loadAverage()} at the end`);
}

async function main(): Promise<void> {
  if (FLEET) return fleet();
  const results: Figures[] = [];
  for (const pools of SIZES) results.push(await measure(pools));
  console.log(`pool selection for a node (matchLabel=pool-group, ${GROUP_SIZE} pools a group, ${REQUESTS} requests a size)`);
  console.log(
    'pools    | /healthz median | select median | select p99 | by annotation median | alloc+release median | alloc+release p99 | list-and-filter median',
  );
  for (const f of results) {
    console.log(
      `${String(f.pools).padEnd(8)} | ${ms(median(f.floor)).padStart(15)} | ${ms(median(f.select)).padStart(13)} | ${ms(percentile(f.select, 99)).padStart(10)} | ${ms(median(f.annotated)).padStart(20)} | ${ms(median(f.pair)).padStart(20)} | ${ms(percentile(f.pair, 99)).padStart(17)} | ${ms(median(f.listFilter)).padStart(22)}`,
    );
  }
  const at = (n: number) => results.find((f) => f.pools === n);
  const [small, mid, large] = [at(100), at(10_000), at(100_000)];
  if (small && large)
    console.log(
      `P2 = selection at 100,000 pools / at 100 pools = ${(median(large.select) / median(small.select)).toFixed(2)} (target <= 1.5)`,
    );
  if (large)
    console.log(
      `pod-annotation / matchLabel selection at 100,000 pools = ${(median(large.annotated) / median(large.select)).toFixed(2)} (target <= 1.2)`,
    );
  if (mid)
    console.log(
      `P3 = list-and-filter / index-backed selection at 10,000 pools = ${(median(mid.listFilter) / median(mid.select)).toFixed(1)} (target >= 100)`,
    );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
