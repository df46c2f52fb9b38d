/**
 * npm run bench:watch — a fake Kubernetes API with 5,000 Nodes, 2,000 IPPools and 20,000 Pods, the
 * watcher and the API as their own processes over the real NATS and Postgres: the time from watcher
 * start until every object is applied (and the first pod sync marker done), with the peak resident
 * memory of both processes, then the latency from one change in Kubernetes to REST.
 * `npm run bench:watch:scale` is the cluster-scale run: 150,000 pods.
 */
import { mkdtempSync, rmSync } from 'node:fs';
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

/** 10.0.0.0/26, 10.0.0.64/26, ...: one /26 per pool, as in the per-rack pools of the Calico thread */
const poolCidr = (i: number) => {
  const base = (10 << 24) + i * 64;
  return `${base >>> 24}.${(base >> 16) & 255}.${(base >> 8) & 255}.${base & 255}/26`;
};

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-watch-'));
  const kube = await startFakeKubeApi({ bookmarkIntervalMs: 5000 });
  const bus = await createTestBus('bench_watch');
  const database = await freshDatabase('watch');
  const db = new Pool({ connectionString: database.url, max: 2 });
  for (let i = 0; i < NODES; i++) kube.upsert('node', { metadata: { name: `node-${i}`, labels: { 'pool-group': `rack-${i % POOLS}` } } });
  for (let i = 0; i < POOLS; i++)
    kube.upsert('ippool', { metadata: { name: `rack-${i}`, labels: { 'pool-group': `rack-${i}` } }, spec: { cidr: poolCidr(i) } });
  for (let i = 0; i < PODS; i++)
    kube.upsert('pod', { metadata: { name: `pod-${i}`, namespace: `ns-${i % 100}` }, spec: { nodeName: `node-${i % NODES}` } });
  const api = await startApi(database.url, bus.env);
  const count = async (sql: string) => Number((await db.query(sql)).rows[0].count);
  console.log(`fake Kubernetes API: ${NODES} nodes, ${POOLS} IPPools, ${PODS} pods`);

  const started = performance.now();
  const watcher = await startWatcherProcess({ ...bus.env, KUBECONFIG: kube.writeKubeconfig(dir) });
  const applied = { nodes: 0, pools: 0, pods: 0 };
  const counts = {
    nodes: 'SELECT count(*) FROM nodes',
    pools: 'SELECT count(*) FROM pools',
    // a row still 'applying' is a message whose commands were cut short, not an applied one
    pods: `SELECT count(*) FROM kubernetes_objects WHERE kind = 'pod' AND status <> 'applying'`,
  };
  const targets = { nodes: NODES, pools: POOLS, pods: PODS };
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
    if (podSyncDone === null && (await count(`SELECT count(*) FROM kubernetes_syncs WHERE kind = 'pod' AND completed_at IS NOT NULL`)) > 0)
      podSyncDone = (performance.now() - started) / 1000;
    if (watcher.lines.some((line) => /^pod: listed/.test(line))) published ??= (performance.now() - started) / 1000;
  }
  const initial = (performance.now() - started) / 1000;
  // what REST shows: the last node and pool listed
  expectStatus(await call(api.base, 'GET', `/v1/nodes/node-${NODES - 1}`), 200, 'the last node');
  expectStatus(await call(api.base, 'GET', `/v1/pools/rack-${POOLS - 1}`), 200, 'the last pool');
  const memory = { watcher: residentMiB(watcher.pid).peak, api: residentMiB(api.pid).peak };
  await bus.idle(600_000);
  const total = NODES + POOLS + PODS;
  console.log(`initial sync: every object applied ${initial.toFixed(1)} s after watcher start (${Math.round(total / initial)} objects/s)`);
  console.log(
    `every object of a kind applied: ${Object.entries(allIn)
      .map(([kind, s]) => `${kind} ${s.toFixed(1)} s`)
      .join(', ')}`,
  );
  console.log(`the watcher published every pod ${published?.toFixed(1)} s after its start`);
  console.log(`first pod sync marker done ${podSyncDone.toFixed(1)} s after watcher start`);
  console.log(`peak resident memory: watcher ${memory.watcher.toFixed(0)} MiB, API ${memory.api.toFixed(0)} MiB`);

  // one change at a time: a node label in Kubernetes until GET /v1/nodes/{name} shows it
  const latencies: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    const name = `node-${i}`;
    const t0 = performance.now();
    kube.upsert('node', { metadata: { name, labels: { 'pool-group': `rack-${i % POOLS}`, change: String(i) } } });
    for (;;) {
      const res = await call(api.base, 'GET', `/v1/nodes/${name}`);
      if (res.body?.labels?.change === String(i)) break;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    latencies.push(performance.now() - t0);
  }
  console.log(
    `change -> REST (node label, ${CHANGES} changes one at a time): median ${ms(median(latencies))}, p99 ${ms(percentile(latencies, 99))}`,
  );

  await watcher.stop();
  await api.stop();
  await db.end();
  await bus.close();
  await kube.close();
  await database.drop();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
