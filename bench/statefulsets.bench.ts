/**
 * npm run bench:statefulset — reserving a continuous range in a fragmented pool, and reconciling
 * many StatefulSets into one pool, then allocating their pods (BENCH_PODS, default 2,000), through the REST API.
 */
import { CommandBus } from '@nestjs/cqrs';
import { CreatePoolsCommand, decideAllocate, PoolAggregate, type CommandMetadata, type DomainEvent } from '@ipledger/domain';
import { loadConfig } from '../apps/api/src/config';
import { createApp } from '../apps/api/src/create-app';
import { EventWriter } from '../apps/api/src/infrastructure/event-writer';
import { OwnTransaction } from '../apps/api/src/infrastructure/unit-of-work';
import { allocationBody, call, expectStatus, freshDatabase, median, ms, percentile, startApi, timed } from './support';

const RESERVATIONS = Number(process.env.BENCH_RESERVATIONS ?? 30);
const STATEFULSETS = Number(process.env.BENCH_STATEFULSETS ?? 1000);
const PODS = Number(process.env.BENCH_PODS ?? 2000);
const META: CommandMetadata = { actor: 'bench', source: 'rest', correlationId: 'bench' };
const OWN = new OwnTransaction({ retries: true });

/**
 * Half of a /16 allocated at random addresses: real IpAllocated events decided by the pool
 * aggregate, appended 1,000 at a time (through the API this would take minutes).
 */
async function seedFragmentedPool(url: string): Promise<void> {
  const app = await createApp(loadConfig({ DATABASE_URL: url, IPAM_KUBERNETES_CONSUMER: 'off' }), { logger: false });
  await app.init();
  await app.get(CommandBus).execute(new CreatePoolsCommand([{ name: 'fragmented', cidr: '10.64.0.0/16' }], META, OWN));
  const writer = app.get(EventWriter);
  const taken = new Set<number>();
  while (taken.size < 32_767) {
    const loaded = await writer.load(PoolAggregate, 'fragmented', OWN);
    const events: DomainEvent[] = [];
    while (events.length < 1000 && taken.size < 32_767) {
      const host = 1 + Math.floor(Math.random() * 65_534);
      if (taken.has(host)) continue;
      taken.add(host);
      const handle = `seed-${host}`;
      const { event } = decideAllocate(loaded.state, {
        handle,
        node: 'n',
        namespace: 'seed',
        pod: handle,
        podUid: null,
        ip: 0x0a400000n + BigInt(host),
      });
      if (event) events.push(event);
    }
    await writer.append(OWN, [{ type: PoolAggregate, loaded, events }], META);
  }
  await app.close();
}

async function main(): Promise<void> {
  const db = await freshDatabase('sts');
  await seedFragmentedPool(db.url);
  const api = await startApi(db.url);
  try {
    expectStatus(await call(api.base, 'POST', '/v1/pools', { name: 'roomy', cidr: '10.65.0.0/16' }), 201, 'create roomy');
    for (let i = 0; i < 50; i++) await call(api.base, 'GET', '/healthz');

    // a 256-address range in the fragmented /16: almost surely no run is that long, so the finder
    // walks every gap and answers dynamic with the largest run; then the same in the roomy /16
    const fragmented = await timed(RESERVATIONS, 1, async (i) => {
      const res = await call(api.base, 'PUT', `/v1/statefulsets/bench/frag-${i}`, { replicas: 256, pool: 'fragmented' });
      expectStatus(res, 200, 'reserve');
      if (i === 0) console.log(`  fragmented /16: mode ${res.body.mode}; ${res.body.reason ?? formatRange(res.body.range)}`);
      expectStatus(await call(api.base, 'DELETE', `/v1/statefulsets/bench/frag-${i}`), 204, 'delete');
    });
    const roomy = await timed(RESERVATIONS, 1, async (i) => {
      const res = await call(api.base, 'PUT', `/v1/statefulsets/bench/roomy-${i}`, { replicas: 256, pool: 'roomy' });
      expectStatus(res, 200, 'reserve');
      if (res.body.mode !== 'continuous') throw new Error('roomy pool should hold a range');
      expectStatus(await call(api.base, 'DELETE', `/v1/statefulsets/bench/roomy-${i}`), 204, 'delete');
    });

    expectStatus(await call(api.base, 'POST', '/v1/pools', { name: 'many', cidr: '10.66.0.0/16' }), 201, 'create many');
    const many = await timed(STATEFULSETS, 1, async (i) => {
      const res = await call(api.base, 'PUT', `/v1/statefulsets/bench/s-${i}`, { replicas: 5, pool: 'many' });
      expectStatus(res, 200, 'reconcile');
      if (res.body.mode !== 'continuous') throw new Error(`s-${i} went dynamic: ${res.body.reason}`);
    });
    const again = await timed(STATEFULSETS, 1, async (i) => {
      expectStatus(await call(api.base, 'PUT', `/v1/statefulsets/bench/s-${i}`, { replicas: 5, pool: 'many' }), 200, 'reconcile again');
    });
    // their pods, as the CNI plugin asks: each takes its ordinal's reserved address
    const pod = (i: number) => `s-${Math.floor(i / 5) % STATEFULSETS}-${i % 5}`;
    const pods = await timed(Math.min(PODS, STATEFULSETS * 5), 1, async (i) => {
      expectStatus(await call(api.base, 'POST', '/v1/allocations', allocationBody(pod(i), 'many')), 201, 'pod');
    });

    console.log('StatefulSet reservations through PUT /v1/statefulsets (+ DELETE, timed together)');
    console.log(
      `  256 addresses in a /16 50% allocated at random: median ${ms(median(fragmented.latencies))}, p99 ${ms(percentile(fragmented.latencies, 99))}`,
    );
    console.log(
      `  256 addresses in an empty /16                  : median ${ms(median(roomy.latencies))}, p99 ${ms(percentile(roomy.latencies, 99))}`,
    );
    console.log(`reconcile ${STATEFULSETS} StatefulSets of 5 replicas into one /16, one client`);
    console.log(
      `  first PUT (reserves): ${many.seconds.toFixed(1)} s in all, median ${ms(median(many.latencies))}, p99 ${ms(percentile(many.latencies, 99))}`,
    );
    console.log(`  same PUT again (no change, appends nothing): median ${ms(median(again.latencies))}`);
    console.log(
      `  their first ${pods.latencies.length} pods allocated one at a time (ordinal addresses): median ${ms(median(pods.latencies))}, p99 ${ms(percentile(pods.latencies, 99))}`,
    );
  } finally {
    await api.stop();
    await db.drop();
  }
}

const formatRange = (range: { start: string; end: string } | null) => (range ? `${range.start}-${range.end}` : 'no range');

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
