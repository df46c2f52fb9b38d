import { appendToStreams } from '@ipledger/event-store';
import { projectEvents } from '@ipledger/projections';
import { runCli } from '../src/cli';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/** What the CNI plugin needs of the API: a pool's gateway, an allocation's network, and the list by node and network. */
describe('pool gateway and allocation network', () => {
  let api: TestApi;
  const alloc = (handle: string, extra: Record<string, unknown> = {}) => ({
    handle,
    node: 'worker-1',
    namespace: 'default',
    pod: `pod-${handle.replace(/\W/g, '-')}`,
    ...extra,
  });

  beforeAll(async () => {
    api = await startTestApi('cni_fields');
  });
  afterAll(() => api.close());

  it('a pool keeps its gateway, shows it, never hands it out, and names it in every allocation', async () => {
    const created = await api.http().post('/v1/pools').send({ name: 'gw', cidr: '10.80.0.0/30', gateway: '10.80.0.1' }).expect(201);
    expect(created.body).toMatchObject({ gateway: '10.80.0.1', capacity: '2', reservedCount: '1', free: '1' });
    const list = await api.http().get('/v1/pools').expect(200);
    expect(list.body.items.find((p: { name: string }) => p.name === 'gw').gateway).toBe('10.80.0.1');

    const first = await api
      .http()
      .post('/v1/allocations')
      .send(alloc('c1:eth0', { pools: ['gw'] }))
      .expect(201);
    expect(first.body.items).toEqual([expect.objectContaining({ ip: '10.80.0.2', gateway: '10.80.0.1' })]);
    const again = await api.http().get('/v1/allocations/c1:eth0').expect(200);
    expect(again.body.items).toEqual(first.body.items);
    const full = await api
      .http()
      .post('/v1/allocations')
      .send(alloc('c2:eth0', { pools: ['gw'] }))
      .expect(409);
    expect(full.body.code).toBe('POOL_EXHAUSTED');
    const asked = await api
      .http()
      .post('/v1/allocations')
      .send(alloc('c3:eth0', { ip: '10.80.0.1' }))
      .expect(409);
    expect(asked.body).toMatchObject({ code: 'IP_RESERVED', message: '10.80.0.1 is the gateway of pool "gw"' });

    // a pool without one has gateway null, and its allocations no gateway field
    const plain = await api.http().post('/v1/pools').send({ name: 'plain', cidr: '10.81.0.0/24' }).expect(201);
    expect(plain.body.gateway).toBeNull();
    const held = await api
      .http()
      .post('/v1/allocations')
      .send(alloc('c4:eth0', { pools: ['plain'] }))
      .expect(201);
    expect(held.body.items[0]).not.toHaveProperty('gateway');
  });

  it('refuses a gateway outside the usable addresses of the CIDR, appending nothing', async () => {
    const before = await api.eventCount();
    for (const gateway of ['10.82.1.1', '10.82.0.0', '10.82.0.255', 'fd00::1', 'ten']) {
      const res = await api.http().post('/v1/pools').send({ name: 'bad-gw', cidr: '10.82.0.0/24', gateway }).expect(400);
      expect(res.body.code).toBe('INVALID_IP');
      expect(res.body.message).toContain(gateway);
    }
    expect(await api.eventCount()).toBe(before);
  });

  it("records the network of an allocation and lists a node's allocations by network", async () => {
    await api.http().post('/v1/pools').send({ name: 'net', cidr: '10.83.0.0/24' }).expect(201);
    for (const [handle, node, network] of [
      ['n1:eth0', 'worker-1', 'pods'],
      ['n2:eth0', 'worker-1', 'pods'],
      ['n3:eth0', 'worker-1', 'storage'],
      ['n4:eth0', 'worker-2', 'pods'],
    ]) {
      const res = await api
        .http()
        .post('/v1/allocations')
        .send(alloc(handle, { node, network, pools: ['net'] }))
        .expect(201);
      expect(res.body.items[0].network).toBe(network);
    }
    await api
      .http()
      .post('/v1/allocations')
      .send(alloc('n5:eth0', { pools: ['net'] }))
      .expect(201);
    const listed = await api.http().get('/v1/allocations?node=worker-1&network=pods').expect(200);
    expect(listed.body.items.map((a: { handle: string }) => a.handle)).toEqual(['n1:eth0', 'n2:eth0']);
    const then = await api.http().get(`/v1/allocations?pool=net&network=storage&at=${new Date().toISOString()}`).expect(200);
    expect(then.body.items.map((a: { handle: string; network: string }) => [a.handle, a.network])).toEqual([['n3:eth0', 'storage']]);
    const bad = await api
      .http()
      .post('/v1/allocations')
      .send(alloc('n6:eth0', { network: 'no spaces' }))
      .expect(400);
    expect(bad.body.code).toBe('INVALID_ARGUMENT');
  });

  it('replays events recorded before gateways and networks existed, and a rebuild matches the live tables', async () => {
    // what an older ipledger wrote: PoolCreated without gateway, IpAllocated without network
    await appendToStreams(
      api.db.pool,
      [
        {
          streamId: 'pool-old',
          expectedVersion: 0,
          events: [
            {
              type: 'PoolCreated',
              data: { name: 'old', cidr: '10.84.0.0/24', family: 4, labels: {}, nodeSelector: null, reserved: [], disabled: false },
            },
            {
              type: 'IpAllocated',
              data: {
                pool: 'old',
                ip: '10.84.0.1',
                family: 4,
                handle: 'old:eth0',
                node: 'worker-1',
                namespace: 'default',
                pod: 'old',
                podUid: null,
              },
            },
          ],
        },
      ],
      { inTransaction: (client, events) => projectEvents(client, events) },
    );
    expect((await api.http().get('/v1/pools/old').expect(200)).body.gateway).toBeNull();
    const old = await api.http().get('/v1/allocations/old:eth0').expect(200);
    expect(old.body.items[0]).not.toHaveProperty('network');
    // the pool aggregate folds the old events too: the next address is the one after
    const next = await api
      .http()
      .post('/v1/allocations')
      .send(alloc('old2:eth0', { pools: ['old'] }))
      .expect(201);
    expect(next.body.items[0].ip).toBe('10.84.0.2');

    const cli = async (...args: string[]) => {
      const lines: string[] = [];
      const code = await runCli(args, (line) => lines.push(line), { DATABASE_URL: api.db.url });
      return { code, lines };
    };
    expect(await cli('replay', '--verify')).toMatchObject({ code: 0 });
    expect((await cli('replay', '--rebuild')).code).toBe(0);
    expect(await cli('replay', '--verify')).toMatchObject({ code: 0 });
    expect((await api.http().get('/v1/allocations?node=worker-1&network=pods').expect(200)).body.items).toHaveLength(2);
  });

  it('documents gateway and network in the OpenAPI document', async () => {
    const { components } = (await api.http().get('/docs-json').expect(200)).body;
    expect(components.schemas.PoolDto.properties.gateway).toMatchObject({ type: 'string', nullable: true });
    expect(components.schemas.CreatePoolDto.properties).toHaveProperty('gateway');
    expect(components.schemas.AllocationDto.properties).toHaveProperty('gateway');
    expect(components.schemas.AllocationDto.properties).toHaveProperty('network');
    expect(components.schemas.CreateAllocationDto.properties).toHaveProperty('network');
    const list = (await api.http().get('/docs-json')).body.paths['/v1/allocations'].get.parameters;
    expect(list.map((p: { name: string }) => p.name)).toContain('network');
  });
});
