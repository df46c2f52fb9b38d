/**
 * npm run bench:alloc — allocation throughput and latency through the REST API, and whether the
 * cost of an allocation stays flat as a pool's history grows (aggregate cache + snapshots).
 */
import { call, expectStatus, freshDatabase, median, ms, percentile, startApi, timed } from './support';

const N = Number(process.env.BENCH_ALLOCATIONS ?? 2000);
const HISTORY = Number(process.env.BENCH_HISTORY ?? 5000);

const body = (handle: string, pool: string) => ({ handle, node: 'bench-node', namespace: 'bench', pod: handle, pools: [pool] });

async function main(): Promise<void> {
  const db = await freshDatabase('alloc');
  let api = await startApi(db.url);
  try {
    for (const [name, cidr] of [
      ['seq', '10.10.0.0/16'],
      ['par', '10.11.0.0/16'],
      ['fresh', '10.12.0.0/16'],
      ['aged', '10.13.0.0/16'],
      ['warm', '10.14.0.0/16'],
    ]) {
      expectStatus(await call(api.base, 'POST', '/v1/pools', { name, cidr }), 201, `create ${name}`);
    }

    const sequential = await timed(N, 1, async (i) =>
      expectStatus(await call(api.base, 'POST', '/v1/allocations', body(`s-${i}`, 'seq')), 201, 'allocate'),
    );
    const parallel = await timed(N, 16, async (i) =>
      expectStatus(await call(api.base, 'POST', '/v1/allocations', body(`p-${i}`, 'par')), 201, 'allocate'),
    );

    // give one pool a long history: HISTORY allocate+release pairs
    await timed(HISTORY, 8, async (i) => {
      expectStatus(await call(api.base, 'POST', '/v1/allocations', body(`h-${i}`, 'aged')), 201, 'allocate');
      expectStatus(await call(api.base, 'DELETE', `/v1/allocations/h-${i}`), 204, 'release');
    });
    const pair = (pool: string, tag: string) => async (i: number) => {
      expectStatus(await call(api.base, 'POST', '/v1/allocations', body(`${tag}-${i}`, pool)), 201, 'allocate');
      expectStatus(await call(api.base, 'DELETE', `/v1/allocations/${tag}-${i}`), 204, 'release');
    };
    const rounds = 300;
    // interleave fresh and aged so drift on a shared machine hits both alike
    const fresh: number[] = [];
    const aged: number[] = [];
    for (let i = 0; i < rounds; i++) {
      fresh.push(...(await timed(1, 1, () => pair('fresh', 'f')(i))).latencies);
      aged.push(...(await timed(1, 1, () => pair('aged', 'a')(i))).latencies);
    }

    // a new replica (warmed up on another pool) whose aggregate cache is cold for these two:
    // the first allocation reads a snapshot and a short tail, not the whole history
    const coldFresh: number[] = [];
    const coldAged: number[] = [];
    for (let r = 0; r < 3; r++) {
      await api.stop();
      api = await startApi(db.url);
      for (let i = 0; i < 200; i++) await pair('warm', `w${r}`)(i);
      coldFresh.push(...(await timed(1, 1, () => pair('fresh', `cf${r}`)(0))).latencies);
      coldAged.push(...(await timed(1, 1, () => pair('aged', `ca${r}`)(0))).latencies);
    }

    console.log(`allocations through POST /v1/allocations (one API process, N=${N})`);
    console.log(
      `  1 client, sequential : ${(N / sequential.seconds).toFixed(0)} allocations/s, median ${ms(median(sequential.latencies))}, p99 ${ms(percentile(sequential.latencies, 99))}`,
    );
    console.log(
      `  16 clients, one pool : ${(N / parallel.seconds).toFixed(0)} allocations/s, median ${ms(median(parallel.latencies))}, p99 ${ms(percentile(parallel.latencies, 99))}`,
    );
    console.log(`allocate+release pair, warm cache (${rounds} rounds, interleaved)`);
    console.log(`  new pool                      : median ${ms(median(fresh))}`);
    console.log(`  pool with ${2 * HISTORY} prior events : median ${ms(median(aged))}`);
    console.log(`  ratio aged/new                : ${(median(aged) / median(fresh)).toFixed(2)}`);
    console.log(`first allocate+release of a pool on a restarted API (cold aggregate cache: snapshot + tail; 3 restarts)`);
    console.log(
      `  new pool median ${ms(median(coldFresh))}, aged pool median ${ms(median(coldAged))}, ratio ${(median(coldAged) / median(coldFresh)).toFixed(2)}`,
    );
  } finally {
    await api.stop();
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
