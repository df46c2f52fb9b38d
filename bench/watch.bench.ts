/**
 * npm run bench:watch — a fake Kubernetes API with 5,000 Nodes, 2,000 IPPools and 20,000 Pods, the
 * watcher and the API as their own processes over the real NATS and Postgres: the time from watcher
 * start until every object is applied (and the first pod sync marker done), with the peak resident
 * memory of both processes, then the latency from one change in Kubernetes to REST.
 * `npm run bench:watch:scale` is the cluster-scale run: 150,000 pods.
 * BENCH_WATCHERS=2 (`npm run bench:watch:scale:two`): that many watchers, each watching its own
 * fake Kubernetes API with the counts above (its objects' names prefixed `w<k>-`, its pools' CIDRs
 * its own), all feeding the one API: the figures are for every object of every watcher.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { startFakeKubeApi } from '../test/support/fake-kube-api';
import { createTestBus } from '../test/support/test-bus';
import { startWatcherProcess } from '../test/support/watcher-process';
import { call, expectStatus, freshDatabase, median, ms, percentile, residentMiB, startApi } from './support';

const NODES = Number(process.env.BENCH_NODES ?? 5000);
const POOLS = Number(process.env.BENCH_POOLS ?? 2000);
const PODS = Number(process.env.BENCH_PODS ?? 20000);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 200);
const WATCHERS = Number(process.env.BENCH_WATCHERS ?? 1);
/** watcher k's object names: unprefixed with one watcher, so its figures stay comparable with earlier runs */
const prefix = (k: number) => (WATCHERS === 1 ? '' : `w${k}-`);
/**
 * The cluster watcher k reports for: the default one with one watcher (comparable with earlier
 * runs), else its own (`bench-<k>`). Object names stay distinct (prefix) since IPPools are
 * fleet-wide: one name in two clusters would be refused (POOL_EXISTS).
 */
const clusterEnv = (k: number): NodeJS.ProcessEnv => (WATCHERS === 1 ? {} : { IPAM_CLUSTER: `bench-${k}` });
/** where watcher k's nodes are read over REST */
const route = (k: number) => (WATCHERS === 1 ? '/v1' : `/v1/clusters/bench-${k}`);

/** 10.0.0.0/26, 10.0.0.64/26, ...: one /26 per pool, as in the per-rack pools of the Calico thread */
const poolCidr = (i: number) => {
  const base = (10 << 24) + i * 64;
  return `${base >>> 24}.${(base >> 16) & 255}.${(base >> 8) & 255}.${base & 255}/26`;
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-watch-'));
  const kubes = await Promise.all(Array.from({ length: WATCHERS }, () => startFakeKubeApi({ bookmarkIntervalMs: 5000 })));
  const bus = await createTestBus('bench_watch');
  const database = await freshDatabase('watch');
  const db = new Pool({ connectionString: database.url, max: 2 });
  kubes.forEach((kube, k) => {
    const p = prefix(k);
    for (let i = 0; i < NODES; i++)
      kube.upsert('node', { metadata: { name: `${p}node-${i}`, labels: { 'pool-group': `${p}rack-${i % POOLS}` } } });
    for (let i = 0; i < POOLS; i++)
      kube.upsert('ippool', {
        metadata: { name: `${p}rack-${i}`, labels: { 'pool-group': `${p}rack-${i}` } },
        spec: { cidr: poolCidr(k * POOLS + i) },
      });
    for (let i = 0; i < PODS; i++)
      kube.upsert('pod', { metadata: { name: `${p}pod-${i}`, namespace: `ns-${i % 100}` }, spec: { nodeName: `${p}node-${i % NODES}` } });
  });
  const api = await startApi(database.url, bus.env);
  const count = async (sql: string) => Number((await db.query(sql)).rows[0].count);
  console.log(`${WATCHERS} fake Kubernetes API(s) and watcher(s), each: ${NODES} nodes, ${POOLS} IPPools, ${PODS} pods`);

  const started = performance.now();
  const kubeconfig = (k: number) => {
    mkdirSync(join(dir, `w${k}`));
    return kubes[k].writeKubeconfig(join(dir, `w${k}`));
  };
  const watchers = await Promise.all(kubes.map((_, k) => startWatcherProcess({ ...bus.env, ...clusterEnv(k), KUBECONFIG: kubeconfig(k) })));
  const applied = { nodes: 0, pools: 0, pods: 0 };
  const counts = {
    nodes: 'SELECT count(*) FROM nodes',
    pools: 'SELECT count(*) FROM pools',
    // a row still 'applying' is a message whose commands were cut short, not an applied one
    pods: `SELECT count(*) FROM kubernetes_objects WHERE kind = 'pod' AND status <> 'applying'`,
  };
  const targets = { nodes: NODES * WATCHERS, pools: POOLS * WATCHERS, pods: PODS * WATCHERS };
  // each count scans its table (150,000 pod rows): taken every 100 ms it cost the database's CPU,
  // which the API shares. A kind is counted again only when what is left could be applied by then
  // at 50,000 objects/s (five times the aim), and no more once all are in: the times stay exact to 100 ms.
  const nextCount = { nodes: 0, pools: 0, pods: 0 };
  let podSyncDone: number | null = null;
  let published: number | undefined;
  const allIn: Partial<Record<'nodes' | 'pools' | 'pods', number>> = {};
  while (Object.keys(allIn).length < 3 || podSyncDone === null) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const kind of ['nodes', 'pools', 'pods'] as const) {
      if (allIn[kind] !== undefined || performance.now() < nextCount[kind]) continue;
      applied[kind] = await count(counts[kind]);
      if (applied[kind] >= targets[kind]) allIn[kind] = (performance.now() - started) / 1000;
      else nextCount[kind] = performance.now() + ((targets[kind] - applied[kind]) / 50_000) * 1000;
    }
    if (
      podSyncDone === null &&
      (await count(`SELECT count(*) FROM kubernetes_syncs WHERE kind = 'pod' AND completed_at IS NOT NULL`)) >= WATCHERS
    )
      podSyncDone = (performance.now() - started) / 1000;
    if (watchers.every((watcher) => watcher.lines.some((line) => /^pod: listed/.test(line))))
      published ??= (performance.now() - started) / 1000;
  }
  const initial = (performance.now() - started) / 1000;
  // what REST shows: the last node and pool listed
  for (let k = 0; k < WATCHERS; k++) {
    expectStatus(await call(api.base, 'GET', `${route(k)}/nodes/${prefix(k)}node-${NODES - 1}`), 200, `watcher ${k}'s last node`);
    expectStatus(await call(api.base, 'GET', `/v1/pools/${prefix(k)}rack-${POOLS - 1}`), 200, `watcher ${k}'s last pool`);
  }
  const memory = { watchers: watchers.map((watcher) => residentMiB(watcher.pid).peak), api: residentMiB(api.pid).peak };
  await bus.idle(600_000);
  const total = (NODES + POOLS + PODS) * WATCHERS;
  console.log(`initial sync: every object applied ${initial.toFixed(1)} s after watcher start (${Math.round(total / initial)} objects/s)`);
  console.log(
    `every object of a kind applied: ${Object.entries(allIn)
      .map(([kind, s]) => `${kind} ${s.toFixed(1)} s`)
      .join(', ')}`,
  );
  console.log(`every watcher published every pod ${published?.toFixed(1)} s after their start`);
  console.log(`every watcher's first pod sync marker done ${podSyncDone.toFixed(1)} s after watcher start`);
  console.log(
    `peak resident memory: watcher(s) ${memory.watchers.map((m) => m.toFixed(0)).join(' / ')} MiB, API ${memory.api.toFixed(0)} MiB`,
  );

  // one change at a time, the watchers in turn: a node label in Kubernetes until GET .../nodes/{name} shows it
  const latencies: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    const k = i % WATCHERS;
    const name = `${prefix(k)}node-${i}`;
    const t0 = performance.now();
    kubes[k].upsert('node', { metadata: { name, labels: { 'pool-group': `${prefix(k)}rack-${i % POOLS}`, change: String(i) } } });
    for (;;) {
      const res = await call(api.base, 'GET', `${route(k)}/nodes/${name}`);
      if (res.body?.labels?.change === String(i)) break;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    latencies.push(performance.now() - t0);
  }
  console.log(
    `change -> REST (node label, ${CHANGES} changes one at a time): median ${ms(median(latencies))}, p99 ${ms(percentile(latencies, 99))}`,
  );

  for (const watcher of watchers) await watcher.stop();
  await api.stop();
  await db.end();
  await bus.close();
  for (const kube of kubes) await kube.close();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
