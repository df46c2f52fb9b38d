import { randomUUID } from 'node:crypto';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { expectReplayVerifyClean } from '../../../test/support/replay-verify';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/**
 * Isolated networks (API.md "Isolated networks"): pools of different networks may share CIDRs, an
 * allocation naming a network takes its address from that network's pools (else from the pools of
 * no network), and an address is held at most once within its network.
 */
describe('isolated networks: address spaces that may overlap', () => {
  let api: TestApi;
  let bus: TestBus;

  /** A refusal with `status`, after which the log is as it was before. */
  async function refused(status: number, send: () => Promise<{ status: number; body: { code?: string; message?: string } }>) {
    const events = await api.eventCount();
    const answer = await send();
    expect({ status: answer.status, events: await api.eventCount() }).toEqual({ status, events });
    return answer;
  }

  beforeAll(async () => {
    bus = await createTestBus('isolated_networks');
    api = await startTestApi('isolated_networks', { env: bus.env });
  });
  afterAll(async () => {
    await api.close();
    await bus.close();
  });

  const allocate = (body: Record<string, unknown>) =>
    api
      .http()
      .post('/v1/allocations')
      .send({ node: 'n1', namespace: 'default', pod: String(body.handle), ...body });

  it('creates pools of the same CIDR in networks blue and red and in the shared space; each carries its network', async () => {
    const blue = await api.http().post('/v1/pools').send({ name: 'blue-a', cidr: '10.50.0.0/24', network: 'blue' });
    expect(blue.status).toBe(201);
    expect(blue.body.network).toBe('blue');
    const red = await api.http().post('/v1/pools').send({ name: 'red-a', cidr: '10.50.0.0/24', network: 'red' });
    expect(red.status).toBe(201);
    expect(red.body.network).toBe('red');
    const shared = await api.http().post('/v1/pools').send({ name: 'shared-a', cidr: '10.50.0.0/25' });
    expect(shared.status).toBe(201);
    expect(shared.body.network).toBeNull();
    expect((await api.http().get('/v1/pools/blue-a')).body.network).toBe('blue');
  });

  it('refuses an overlapping pool within one network (409 POOL_OVERLAP, nothing appended), the shared space included', async () => {
    const inBlue = await refused(409, () => api.http().post('/v1/pools').send({ name: 'blue-b', cidr: '10.50.0.128/25', network: 'blue' }));
    expect(inBlue.body.code).toBe('POOL_OVERLAP');
    expect(inBlue.body.message).toMatch(/pool "blue-a" \(10\.50\.0\.0\/24\) in network "blue"/);
    const inShared = await refused(409, () => api.http().post('/v1/pools').send({ name: 'shared-b', cidr: '10.50.0.0/24' }));
    expect(inShared.body.code).toBe('POOL_OVERLAP');
    expect(inShared.body.message).toMatch(/pool "shared-a"/);
  });

  it('refuses a grow into another pool of the same network, and takes one over a pool of another network', async () => {
    await api.http().post('/v1/pools').send({ name: 'blue-c', cidr: '10.51.1.0/24', network: 'blue' }).expect(201);
    await api.http().post('/v1/pools').send({ name: 'red-c', cidr: '10.51.0.0/24', network: 'red' }).expect(201);
    await api.http().post('/v1/pools').send({ name: 'blue-d', cidr: '10.51.2.0/24', network: 'blue' }).expect(201);
    // 10.51.0.0/23 takes in red-c's addresses (another network) only
    const grown = await api.http().patch('/v1/pools/blue-c').send({ cidr: '10.51.0.0/23' });
    expect(grown.status).toBe(200);
    const over = await refused(409, () => api.http().patch('/v1/pools/blue-c').send({ cidr: '10.51.0.0/22' }));
    expect(over.body.code).toBe('POOL_OVERLAP');
    expect(over.body.message).toMatch(/pool "blue-d"/);
  });

  it('gives an allocation its network’s addresses, and holds the same address in two networks at once', async () => {
    const blue = await allocate({ handle: 'blue-1', network: 'blue', ip: '10.50.0.10' });
    expect(blue.status).toBe(201);
    expect(blue.body.items[0]).toMatchObject({ pool: 'blue-a', ip: '10.50.0.10', network: 'blue' });
    const red = await allocate({ handle: 'red-1', network: 'red', ip: '10.50.0.10' });
    expect(red.status).toBe(201);
    expect(red.body.items[0]).toMatchObject({ pool: 'red-a', ip: '10.50.0.10', network: 'red' });
    const shared = await allocate({ handle: 'shared-1', ip: '10.50.0.10' });
    expect(shared.status).toBe(201);
    expect(shared.body.items[0]).toMatchObject({ pool: 'shared-a', ip: '10.50.0.10' });
    // within one network the address is held once
    const again = await refused(409, () => allocate({ handle: 'blue-2', network: 'blue', ip: '10.50.0.10' }));
    expect(again.body.code).toBe('IP_IN_USE');
    // without `ip`: the pool of the network, whatever the shared space has
    const any = await allocate({ handle: 'red-2', network: 'red' });
    expect(any.body.items[0].pool).toBe('red-a');
    const rows = await api.db.pool.query(`SELECT pool, pool_network FROM allocations WHERE ip = '10.50.0.10' ORDER BY pool`);
    expect(rows.rows).toEqual([
      { pool: 'blue-a', pool_network: 'blue' },
      { pool: 'red-a', pool_network: 'red' },
      { pool: 'shared-a', pool_network: null },
    ]);
  });

  it('takes an address of a network no pool has from the pools of no network, and keeps the network asked with', async () => {
    const res = await allocate({ handle: 'k8s-1', network: 'k8s-pod-network' });
    expect(res.status).toBe(201);
    expect(res.body.items[0]).toMatchObject({ pool: 'shared-a', network: 'k8s-pod-network' });
    // a pool of that network named by `pools` is out of a request of another network's space
    const named = await refused(409, () => allocate({ handle: 'named-1', network: 'red', pools: ['blue-a'] }));
    expect(named.body.code).toBe('NO_ELIGIBLE_POOL');
    expect(named.body.message).toMatch(/blue-a: network: the pool is in network "blue", the request's is network "red"/);
    // the node's eligible pools follow the same rule
    const eligible = await api.http().get('/v1/nodes/n1/pools?network=red&families=4');
    expect(eligible.body.items.map((p: { name: string }) => p.name)).toEqual(['red-a', 'red-c']);
    const unknown = await api.http().get('/v1/nodes/n1/pools?network=nowhere&families=4');
    expect(unknown.body.items.map((p: { name: string }) => p.name)).toEqual(['shared-a']);
  });

  it('serves a one-pool rule without its start read in the shared space only while no pool has the network', async () => {
    await api.http().post('/v1/pools').send({ name: 'solo', cidr: '10.70.0.0/24' }).expect(201);
    // warms the pool's cached state
    await allocate({ handle: 'solo-0', pools: ['solo'] }).expect(201);
    const first = await allocate({ handle: 'solo-1', network: 'violet', pools: ['solo'] });
    expect(first.body.items[0]).toMatchObject({ pool: 'solo' });
    await api.http().post('/v1/pools').send({ name: 'violet-a', cidr: '10.70.0.0/24', network: 'violet' }).expect(201);
    // violet now has a pool of its own: the cached shared-space pool is no longer its space
    const refusedHere = await refused(409, () => allocate({ handle: 'solo-2', network: 'violet', pools: ['solo'] }));
    expect(refusedHere.body.code).toBe('NO_ELIGIBLE_POOL');
  });

  it("names each history entry's network and narrows to one with ?network=", async () => {
    const all = await api.http().get('/v1/ips/10.50.0.10/history');
    expect(all.status).toBe(200);
    const seen = all.body.items.map((item: { pool: string; network: string | null; handle: string }) => [
      item.pool,
      item.network,
      item.handle,
    ]);
    expect(seen).toEqual([
      ['blue-a', 'blue', 'blue-1'],
      ['red-a', 'red', 'red-1'],
      ['shared-a', null, 'shared-1'],
    ]);
    await api.http().delete('/v1/allocations/red-1').expect(204);
    const red = await api.http().get('/v1/ips/10.50.0.10/history?network=red');
    expect(red.body.items.map((item: { type: string; network: string }) => [item.type, item.network])).toEqual([
      ['IpAllocated', 'red'],
      ['IpReleased', 'red'],
    ]);
    await refused(400, () => api.http().get('/v1/ips/10.50.0.10/history?network=-bad'));
  });

  it('names the network on blocks', async () => {
    await api.http().post('/v1/pools').send({ name: 'blue-blocks', cidr: '10.52.0.0/24', network: 'blue', blockSize: 28 }).expect(201);
    await allocate({ handle: 'blk-1', network: 'blue', pools: ['blue-blocks'] }).expect(201);
    const blocks = await api.http().get('/v1/pools/blue-blocks/blocks');
    expect(blocks.body.items).toEqual([expect.objectContaining({ pool: 'blue-blocks', network: 'blue', node: 'n1' })]);
  });

  it("refuses a change of a pool's network and a bad network, appending nothing", async () => {
    await refused(400, () => api.http().patch('/v1/pools/blue-a').send({ network: 'red' }));
    for (const network of ['-blue', 'blue/red', 'a'.repeat(254), '', 7]) {
      await refused(400, () => api.http().post('/v1/pools').send({ name: 'bad-net', cidr: '10.90.0.0/24', network }));
    }
    await refused(400, () => allocate({ handle: 'bad-1', network: 'blue red' }));
  });

  it('applies spec.network of IPPool objects, and refuses a change of it in the status', async () => {
    let rv = 2000;
    const uid = randomUUID();
    const ippool = (spec: Record<string, unknown>) => ({ metadata: { name: 'k8s-blue', uid, resourceVersion: String(++rv) }, spec });
    const status = async () =>
      (await api.db.pool.query(`SELECT status FROM kubernetes_objects WHERE kind = 'ippool' AND key = 'k8s-blue'`)).rows[0]?.status as
        | string
        | undefined;
    await bus.publisher.change({ kind: 'ippool', type: 'ADDED', object: ippool({ cidr: '10.50.0.0/25', network: 'orange' }) });
    await bus.publisher.flush();
    await bus.idle();
    expect(await status()).toBe('created');
    expect((await api.http().get('/v1/pools/k8s-blue')).body).toMatchObject({ cidr: '10.50.0.0/25', network: 'orange' });
    const before = await api.eventCount();
    await bus.publisher.change({ kind: 'ippool', type: 'MODIFIED', object: ippool({ cidr: '10.50.0.0/25', network: 'purple' }) });
    await bus.publisher.flush();
    await bus.idle();
    expect(await status()).toMatch(/^refused: .*cannot move to network "purple"/);
    expect(await api.eventCount()).toBe(before);
  });

  it('rebuilds every read model from the log exactly as it is live (replay --verify)', async () => {
    await expectReplayVerifyClean(api.db.url);
  });
});
