/**
 * npm run bench:external-ipam — OKEP-6831's scale test against /external-ipam: 1,500 concurrent
 * /allocate calls from two clusters (east, west) over several networks (half IPv4, half dual
 * stack), all issued at once; p50/p95/p99 and allocations a second; every address checked to be
 * held once within its network; then the 1,500 releases, also at once. BENCH_ROUNDS rounds on the
 * same API (the first one warm-up included), BENCH_CALLS calls a round, BENCH_NETWORKS networks.
 */
import { call, expectStatus, freshDatabase, ms, percentile, startApi, timed } from './support';

const CALLS = Number(process.env.BENCH_CALLS ?? 1500);
const NETWORKS = Number(process.env.BENCH_NETWORKS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLUSTERS = ['east', 'west'];

const network = (n: number) => `bench_udn_${n}`;
/** Even networks IPv4 only, odd ones dual stack; a /20 each, room for every call of a round. */
const subnets = (n: number) => (n % 2 === 0 ? [`10.${100 + n}.0.0/20`] : [`10.${100 + n}.0.0/20`, `fd00:${100 + n}::/64`]);

interface Round {
  allocate: number[];
  allocateSeconds: number;
  release: number[];
  releaseSeconds: number;
}

async function round(base: string, r: number): Promise<Round> {
  const request = (i: number) => ({
    cluster: CLUSTERS[i % CLUSTERS.length],
    network: network(i % NETWORKS),
    workload_id: `bench-${r}/pod-${i}`,
  });
  const held = new Map<number, string[]>();
  const allocated = await timed(CALLS, CALLS, async (i) => {
    const res = await call(base, 'POST', '/external-ipam/v1/allocate', request(i));
    expectStatus(res, 200, `allocate ${i}`);
    held.set(i, res.body.ips as string[]);
  });
  // no address twice within a network (the same address in two networks is allowed)
  const seen = new Set<string>();
  for (const [i, ips] of held) {
    if (ips.length !== subnets(i % NETWORKS).length) throw new Error(`call ${i}: ${ips.length} addresses, expected one a family`);
    for (const ip of ips) {
      const key = `${network(i % NETWORKS)} ${ip}`;
      if (seen.has(key)) throw new Error(`${key} given twice`);
      seen.add(key);
    }
  }
  const released = await timed(CALLS, CALLS, async (i) => {
    expectStatus(await call(base, 'POST', '/external-ipam/v1/release', { ...request(i), ips: held.get(i) }), 204, `release ${i}`);
  });
  return {
    allocate: allocated.latencies,
    allocateSeconds: allocated.seconds,
    release: released.latencies,
    releaseSeconds: released.seconds,
  };
}

const line = (what: string, latencies: number[], seconds: number) =>
  `${what}: p50 ${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}, p99 ${ms(percentile(latencies, 99))}, ` +
  `${(latencies.length / seconds).toFixed(0)}/s (${latencies.length} in ${seconds.toFixed(2)} s)`;

async function main(): Promise<void> {
  const db = await freshDatabase('external_ipam');
  const api = await startApi(db.url);
  try {
    for (let n = 0; n < NETWORKS; n++) {
      for (const cluster of CLUSTERS) {
        expectStatus(
          await call(api.base, 'POST', '/external-ipam/v1/register', { network: network(n), subnets: subnets(n), cluster }),
          204,
          `register ${network(n)} from ${cluster}`,
        );
      }
    }
    console.log(`${CALLS} concurrent calls a round, clusters ${CLUSTERS.join(' and ')}, ${NETWORKS} networks (every other one dual stack)`);
    for (let r = 1; r <= ROUNDS; r++) {
      const figures = await round(api.base, r);
      console.log(`round ${r}`);
      console.log(`  ${line('allocate', figures.allocate, figures.allocateSeconds)}; no address twice`);
      console.log(`  ${line('release', figures.release, figures.releaseSeconds)}`);
    }
    const status = await call(api.base, 'GET', '/external-ipam/v1/status');
    console.log(`status after the rounds: usage ${JSON.stringify(status.body.usage)}`);
  } finally {
    await api.stop();
    await db.drop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
