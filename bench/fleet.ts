/**
 * The fleet mode of bench:selection and bench:alloc (BENCH_FLEET=1, issue 35): the same nodes laid
 * out two ways, each in its own database behind its own API, both up for the whole run:
 *   fleet  = BENCH_FLEET_CLUSTERS (default 100) clusters of BENCH_FLEET_NODES / clusters nodes each
 *            (routes /v1/clusters/{c}/...)
 *   single = the default cluster holding all BENCH_FLEET_NODES (default 100,000) nodes (routes /v1/...)
 * over the same BENCH_FLEET_POOLS (default 10,000) /26 pools, one `pool-group` value per
 * GROUP_SIZE pools, node i labelled with group i mod groups in both layouts. The pools go through
 * the command bus (seedPools); the nodes and clusters are written straight into the event store
 * (SQL) and the read models rebuilt by `ipledger replay --rebuild`.
 * Rounds alternate the layouts A B B A ..., so drift on a shared machine hits both alike.
 */
import { readFileSync } from 'node:fs';
import { Pool } from 'pg';
import { loadConfig } from '../apps/api/src/config';
import { createApp } from '../apps/api/src/create-app';
import type { ApiProcess } from '../test/support/api-process';
import { GROUP_SIZE, seedPools } from '../test/support/seed-pools';
import { call, expectStatus, freshDatabase, median, ms, percentile, rebuildReadModels, startApi } from './support';

export const FLEET = process.env.BENCH_FLEET === '1';
const CLUSTERS = Number(process.env.BENCH_FLEET_CLUSTERS ?? 100);
export const FLEET_NODES = Number(process.env.BENCH_FLEET_NODES ?? 100_000);
const POOLS = Number(process.env.BENCH_FLEET_POOLS ?? 10_000);

export interface Layout {
  name: 'fleet' | 'single';
  clusters: number;
  api: ApiProcess;
  /** node i (any whole number, taken mod the node count): its routes' prefix (`/v1` or `/v1/clusters/{c}`) and its name */
  node(i: number): { prefix: string; name: string };
}

const nodeOf = (clusters: number) => (i: number) => {
  const n = ((i % FLEET_NODES) + FLEET_NODES) % FLEET_NODES;
  return clusters === 1
    ? { prefix: '/v1', name: `w-${n}` }
    : { prefix: `/v1/clusters/c-${n % clusters}`, name: `w-${Math.floor(n / clusters)}` };
};

/**
 * `clusters` clusters (c-0, c-1, ...; 1: the default cluster) holding FLEET_NODES nodes between
 * them: node n is `w-<n div clusters>` in c-<n mod clusters>, labelled `pool-group: group-<n mod groups>`.
 */
async function seedLayout(url: string, clusters: number): Promise<void> {
  const app = await createApp(loadConfig({ DATABASE_URL: url, IPAM_KUBERNETES_CONSUMER: 'off' }), { logger: false });
  await app.init();
  await seedPools(app, POOLS);
  await app.close();
  const sql = new Pool({ connectionString: url, max: 1 });
  try {
    if (clusters > 1)
      await sql.query(
        `INSERT INTO events (stream_id, version, event_id, type, schema_version, data)
         SELECT 'cluster-c-' || k, 1, gen_random_uuid(), 'ClusterLabelsSet', 1, jsonb_build_object('name', 'c-' || k, 'labels', '{}'::jsonb)
         FROM generate_series(0, $1::int - 1) k ORDER BY k`,
        [clusters],
      );
    // as decideSetNodeLabels writes them: the default cluster's without `cluster`, its stream `node-<name>`; another's `node-<cluster>/<name>`
    await sql.query(
      `INSERT INTO events (stream_id, version, event_id, type, schema_version, data)
       SELECT 'node-' || CASE WHEN $2::int = 1 THEN name ELSE cluster || '/' || name END, 1, gen_random_uuid(), 'NodeLabelsSet', 1,
              jsonb_build_object('name', name, 'labels', jsonb_build_object('pool-group', 'group-' || (n % $3::int)))
                || CASE WHEN $2::int = 1 THEN '{}'::jsonb ELSE jsonb_build_object('cluster', cluster) END
       FROM generate_series(0, $1::int - 1) n,
            LATERAL (SELECT 'c-' || (n % $2::int) AS cluster, 'w-' || CASE WHEN $2::int = 1 THEN n ELSE n / $2::int END AS name) x
       ORDER BY n`,
      [FLEET_NODES, clusters, Math.ceil(POOLS / GROUP_SIZE)],
    );
  } finally {
    await sql.end();
  }
  await rebuildReadModels(url);
  const db = new Pool({ connectionString: url, max: 1 });
  // what autovacuum would do on a live database: give the planner statistics
  await db.query('ANALYZE');
  await db.end();
}

/** Both layouts seeded and served; `work` gets them, and they are stopped and dropped after. */
export async function withLayouts<T>(work: (layouts: [Layout, Layout]) => Promise<T>): Promise<T> {
  const made: Array<{ layout: Layout; drop(): Promise<void> }> = [];
  try {
    for (const [name, clusters] of [
      ['fleet', CLUSTERS],
      ['single', 1],
    ] as const) {
      const db = await freshDatabase(`fleet_${name}`);
      const t0 = performance.now();
      try {
        await seedLayout(db.url, clusters);
      } catch (err) {
        await db.drop();
        throw err;
      }
      console.error(
        `  ${name}: seeded ${POOLS} pools and ${FLEET_NODES} nodes in ${clusters} cluster(s) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
      const api = await startApi(db.url);
      made.push({ layout: { name, clusters, api, node: nodeOf(clusters) }, drop: () => db.drop() });
    }
    return await work([made[0].layout, made[1].layout]);
  } finally {
    for (const one of made) {
      await one.layout.api.stop();
      await one.drop();
    }
  }
}

/** Runs `round(layout, r)` for `rounds` rounds, the order alternating A B, B A, A B, ... */
export async function alternate(
  layouts: [Layout, Layout],
  rounds: number,
  round: (layout: Layout, r: number) => Promise<void>,
): Promise<void> {
  for (let r = 0; r < rounds; r++) {
    for (const layout of r % 2 === 0 ? layouts : [layouts[1], layouts[0]]) await round(layout, r);
  }
}

export const describeLayouts = () =>
  `fleet = ${CLUSTERS} clusters x ${FLEET_NODES / CLUSTERS} nodes, single = the default cluster with ${FLEET_NODES} nodes; ${POOLS} /26 pools, ${GROUP_SIZE} a pool-group`;

/** Allocates `handle` for node i of the layout, its pools chosen by the node's `pool-group` label; expects 201. */
export async function allocateOn(layout: Layout, handle: string, i: number): Promise<void> {
  const { prefix, name } = layout.node(i);
  const body = { handle, node: name, namespace: 'bench', pod: handle, matchLabel: 'pool-group' };
  expectStatus(await call(layout.api.base, 'POST', `${prefix}/allocations`, body), 201, `allocate ${handle} (${layout.name})`);
}

/** Releases what `allocateOn(layout, handle, i)` allocated; expects 204. */
export async function releaseOn(layout: Layout, handle: string, i: number): Promise<void> {
  const { prefix } = layout.node(i);
  expectStatus(await call(layout.api.base, 'DELETE', `${prefix}/allocations/${handle}`), 204, `release ${handle} (${layout.name})`);
}

/** Per layout, a figure's samples. */
export type PerLayout = Record<Layout['name'], number[]>;
export const perLayout = (): PerLayout => ({ fleet: [], single: [] });

/** A latency figure per layout (p50, p95) and the fleet / single ratio of each. */
export function latencyLine(what: string, samples: PerLayout): string {
  const { fleet: f, single: s } = samples;
  const ratio = (p: number) => (percentile(f, p) / percentile(s, p)).toFixed(2);
  return `  ${what.padEnd(34)} fleet p50 ${ms(median(f))} p95 ${ms(percentile(f, 95))} | single p50 ${ms(median(s))} p95 ${ms(percentile(s, 95))} | fleet/single p50 ${ratio(50)}, p95 ${ratio(95)} (target <= 1.2; ${f.length} + ${s.length} samples)`;
}

/** The 1, 5 and 15 minute load averages: how shared the machine was. */
export const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
