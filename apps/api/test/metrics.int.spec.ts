import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/** /metrics: what a pool holds, allocation outcomes and latency, the consumer's lag; and nothing `promtool check metrics` objects to. */
describe('metrics', () => {
  let bus: TestBus;
  let api: TestApi;

  beforeAll(async () => {
    bus = await createTestBus('metrics');
    api = await startTestApi('metrics', { env: bus.env });
  });
  afterAll(async () => {
    await api.close();
    await bus.close();
  });

  const scrape = async () => (await api.http().get('/metrics').expect(200)).text;
  const value = (text: string, series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  const allocate = (handle: string, pools: string[]) =>
    api.http().post('/v1/allocations').send({ handle, node: 'n1', namespace: 'ns', pod: handle, pools });

  it('exports each pool by state and capacity, allocation outcomes and durations, and the consumer lag per kind', async () => {
    // a /29: 6 addresses to hand out, 1 of them reserved
    await api
      .http()
      .post('/v1/pools')
      .send({ name: 'small', cidr: '10.92.0.0/29', reserved: ['10.92.0.6'] })
      .expect(201);
    await api.http().put('/v1/statefulsets/ns/db').send({ replicas: 2, pool: 'small' }).expect(200);
    for (const handle of ['a', 'b']) await allocate(handle, ['small']).expect(201);
    await allocate('a', ['small']).expect(200);
    await allocate('c', ['small']).expect(201);
    expect((await allocate('d', ['small']).expect(409)).body.code).toBe('POOL_EXHAUSTED');
    expect((await allocate('e', ['nowhere']).expect(409)).body.code).toBe('NO_ELIGIBLE_POOL');
    await bus.publisher.change({
      kind: 'node',
      type: 'ADDED',
      object: { metadata: { name: 'n1', uid: randomUUID(), resourceVersion: '1' } },
    });
    await bus.publisher.flush();
    await bus.idle();

    const text = await scrape();
    const pool = (state: string) => value(text, `ipledger_pool_addresses{pool="small",family="4",state="${state}"}`);
    expect(value(text, 'ipledger_pool_capacity_addresses{pool="small",family="4"}')).toBe(6);
    expect([pool('allocated'), pool('reserved'), pool('statefulset_range'), pool('free')]).toEqual([3, 1, 2, 0]);
    expect(value(text, 'ipledger_allocations_total{cluster="default",outcome="allocated"}')).toBe(3);
    expect(value(text, 'ipledger_allocations_total{cluster="default",outcome="existing"}')).toBe(1);
    expect(value(text, 'ipledger_allocations_total{cluster="default",outcome="exhausted"}')).toBe(1);
    expect(value(text, 'ipledger_allocations_total{cluster="default",outcome="no-eligible-pool"}')).toBe(1);
    expect(value(text, 'ipledger_allocation_duration_seconds_count{cluster="default"}')).toBe(6);
    expect(value(text, 'ipledger_kubernetes_consumer_lag_messages{kind="node"}')).toBe(0);
    expect(value(text, 'ipledger_kubernetes_consumer_lag_seconds{kind="node"}')).toBeGreaterThanOrEqual(0);
    expect(value(text, 'ipledger_leak_candidates{cluster="default"}')).toBe(0);
    expect(value(text, 'ipledger_held_for_node{cluster="default"}')).toBe(0);
    // the gauges prom-client names like counters are gone; their twins stay
    expect(text).not.toMatch(/^ipledger_nodejs_active_\w+_total/m);
    expect(text).toMatch(/^ipledger_nodejs_active_handles\{/m);
  });

  it('times a pod from its creation in the API server to its allocation, for pods the watcher reported', async () => {
    await api.http().post('/v1/pools').send({ name: 'timed', cidr: '10.93.0.0/28' }).expect(201);
    const uid = randomUUID();
    const createdAt = new Date(Date.now() - 30_000).toISOString();
    await bus.publisher.change({
      kind: 'pod',
      type: 'ADDED',
      object: {
        metadata: { name: 'web-1', namespace: 'shop', uid, resourceVersion: '7', creationTimestamp: createdAt },
        spec: { nodeName: 'n1' },
      },
    });
    await bus.publisher.flush();
    await bus.idle();
    const histogram = async () => {
      const text = await scrape();
      return {
        count: value(text, 'ipledger_pod_creation_to_allocation_seconds_count{cluster="default"}'),
        under10: value(text, 'ipledger_pod_creation_to_allocation_seconds_bucket{le="10",cluster="default"}'),
        under60: value(text, 'ipledger_pod_creation_to_allocation_seconds_bucket{le="60",cluster="default"}'),
      };
    };
    const podRequest = (handle: string, pod: string, podUid: string) => ({
      handle,
      node: 'n1',
      namespace: 'shop',
      pod,
      podUid,
      pools: ['timed'],
    });
    // an external allocation named like the pod (no podUid: for no pod) is not timed
    await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 't-external', node: 'n1', namespace: 'shop', pod: 'web-1', pools: ['timed'] })
      .expect(201);
    // a cluster's series start with its first observation
    expect(await histogram()).toEqual({ count: undefined, under10: undefined, under60: undefined });
    await api
      .http()
      .post('/v1/allocations')
      .send(podRequest('t-web-1', 'web-1', uid))
      .expect(201);
    // a retried ADD allocates nothing new: not timed again
    await api
      .http()
      .post('/v1/allocations')
      .send(podRequest('t-web-1', 'web-1', uid))
      .expect(200);
    expect(await histogram()).toEqual({ count: 1, under10: 0, under60: 1 });
  });

  it('labels allocations and held addresses by cluster: a series a cluster, never one a node or a made-up cluster', async () => {
    await api.http().post('/v1/pools').send({ name: 'fleet', cidr: '10.94.0.0/29' }).expect(201);
    const inCluster = (cluster: string, handle: string, node: string, pool = 'fleet') =>
      api
        .http()
        .post(`/v1/clusters/${cluster}/allocations`)
        .send({ handle, node, namespace: 'ns', pod: handle, pools: [pool] });
    await inCluster('east', 'e1', 'east-1').expect(201);
    await inCluster('east', 'e2', 'east-2').expect(201);
    await inCluster('east', 'e1', 'east-1').expect(200);
    // refusals in clusters that do not exist (nothing is written, no cluster made): one series for them all
    for (const ghost of ['ghost-1', 'ghost-2', 'ghost-3']) await inCluster(ghost, 'g', 'n1', 'nowhere').expect(409);
    // a refusal in a cluster that exists is that cluster's
    await inCluster('east', 'e3', 'east-1', 'nowhere').expect(409);

    const text = await scrape();
    const expected: Record<string, number> = {
      'ipledger_allocations_total{cluster="east",outcome="allocated"}': 2,
      'ipledger_allocations_total{cluster="east",outcome="existing"}': 1,
      'ipledger_allocations_total{cluster="east",outcome="no-eligible-pool"}': 1,
      'ipledger_allocations_total{cluster="",outcome="no-eligible-pool"}': 3,
      'ipledger_allocation_duration_seconds_count{cluster="east"}': 4,
      'ipledger_held_for_node{cluster="east"}': 0,
      'ipledger_leak_candidates{cluster="east"}': 0,
    };
    expect(Object.fromEntries(Object.keys(expected).map((series) => [series, value(text, series)]))).toEqual(expected);
    const clusters = new Set([...text.matchAll(/\bcluster="([^"]*)"/g)].map((m) => m[1]));
    expect([...clusters].sort()).toEqual(['', 'default', 'east']);
    expect(text).not.toMatch(/\bnode="/);
  });

  it('passes promtool check metrics', async () => {
    const text = await scrape();
    const result = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(result.error).toBeUndefined();
    expect({ status: result.status, out: `${result.stdout}${result.stderr}`.trim() }).toEqual({ status: 0, out: '' });
  });
});
