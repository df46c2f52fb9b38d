/**
 * npm run bench:time-travel — the cost of `?at=` on a pool of BENCH_EVENTS (default 1,000,000)
 * events: one read alone and 32 at once (the replica's cap refuses what is past it, 503 with
 * Retry-After), against allocation latency in another pool measured at the same time, and the
 * API's resident memory. The history is decided by the real aggregate and inserted in bulk, then
 * snapshotted along the way and sealed, as an import leaves it (test/support/long-pool-log.ts).
 */
import { PoolAggregate, upcast } from '@ipledger/domain';
import { sealChain, takeSnapshots } from '@ipledger/event-store';
import { rebuildProjections } from '@ipledger/projections';
import { Pool } from 'pg';
import { writeLongPool } from '../test/support/long-pool-log';
import { allocate, call, freshDatabase, median, ms, percentile, residentMiB, startApi } from './support';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

async function seed(url: string): Promise<void> {
  const pool = new Pool({ connectionString: url, max: 4 });
  try {
    let started = Date.now();
    await writeLongPool(pool, 'long', '10.200.0.0/22', EVENTS);
    console.log(`log: ${EVENTS} events of one pool inserted in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    started = Date.now();
    await rebuildProjections(pool);
    const client = await pool.connect();
    const snapshots = await takeSnapshots(client, [PoolAggregate], upcast).finally(() => client.release());
    for (let head = null as Awaited<ReturnType<typeof sealChain>>['head']; ; ) {
      const round = await sealChain(pool, { limit: 20_000, sealed: head });
      head = round.head;
      if (round.sealed === 0 && !round.behind) break;
    }
    console.log(`  read models, ${snapshots} snapshots and the chain in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await pool.end();
  }
}

async function main(): Promise<void> {
  const db = await freshDatabase('time_travel');
  try {
    await seed(db.url);
    const api = await startApi(db.url);
    try {
      await call(api.base, 'POST', '/v1/pools', { name: 'probe', cidr: '10.64.0.0/12' });
      let serial = 0;
      const allocation = async () => {
        const started = performance.now();
        await allocate(api.base, `probe-${serial++}`, 'probe');
        return performance.now() - started;
      };
      const read = async () => {
        const started = performance.now();
        const res = await call(api.base, 'GET', `/v1/allocations?pool=long&limit=1000&at=${new Date().toISOString()}`);
        return { ms: performance.now() - started, status: res.status };
      };
      for (let i = 0; i < 50; i++) await allocation();
      const idle: number[] = [];
      for (let i = 0; i < 200; i++) idle.push(await allocation());
      console.log(
        `allocation alone: median ${ms(median(idle))}, p95 ${ms(percentile(idle, 95))}; API RSS ${residentMiB(api.pid).now.toFixed(0)} MiB`,
      );

      const alone: number[] = [];
      for (let i = 0; i < ROUNDS; i++) alone.push((await read()).ms);
      console.log(`one ?at= read alone (${ROUNDS} runs): median ${ms(median(alone))}, p95 ${ms(percentile(alone, 95))}`);

      for (let round = 0; round < ROUNDS; round++) {
        let peak = residentMiB(api.pid).now;
        const sampler = setInterval(() => (peak = Math.max(peak, residentMiB(api.pid).now)), 10);
        let reading = true;
        const reads = Promise.all(Array.from({ length: 32 }, read)).finally(() => (reading = false));
        const during: number[] = [];
        while (reading) during.push(await allocation());
        const answers = await reads;
        clearInterval(sampler);
        const served = answers.filter((a) => a.status === 200).map((a) => a.ms);
        const refused = answers.filter((a) => a.status === 503).map((a) => a.ms);
        console.log(
          `32 ?at= reads at once, round ${round + 1}: ${served.length} served (median ${ms(median(served))}, slowest ${ms(Math.max(...served))}), ` +
            `${refused.length} refused 503 (median ${ms(median(refused))}); allocations meanwhile: ${during.length}, ` +
            `median ${ms(median(during))}, p95 ${ms(percentile(during, 95))}; API RSS peak ${peak.toFixed(0)} MiB`,
        );
      }
    } finally {
      await api.stop();
    }
  } finally {
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
