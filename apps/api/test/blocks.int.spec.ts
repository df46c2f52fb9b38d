import { runCli } from '../src/cli';
import { eventually } from '../../../test/support/eventually';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

/** Pools handed to nodes in blocks (issue 24), through the HTTP API on a real database. */
describe('blocks over HTTP', () => {
  let api: TestApi;
  beforeAll(async () => {
    // a fast sweep, so the release delay is what the test measures
    api = await startTestApi('blocks', { env: { IPAM_BLOCK_SWEEP_INTERVAL_MS: '100' } });
  });
  afterAll(() => api.close());

  const allocate = (pool: string, handle: string, node: string) =>
    api
      .http()
      .post('/v1/allocations')
      .send({ handle, node, namespace: 'ns', pod: handle, pools: [pool] });

  it('gives 3 nodes of a /24 with blockSize 26 three distinct /26s, a fourth node the fourth, and refuses a fifth under strict', async () => {
    const created = await api
      .http()
      .post('/v1/pools')
      .send({ name: 'strict', cidr: '10.40.0.0/24', blockSize: 26, blockAffinity: 'strict' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ blockSize: 26, blockAffinity: 'strict', blockReleaseSeconds: 300 });
    const ips: string[] = [];
    for (const node of ['n1', 'n2', 'n3', 'n4']) {
      for (let i = 0; i < 2; i++) {
        const res = await allocate('strict', `s-${node}-${i}`, node);
        expect(res.status).toBe(201);
        expect(res.body.items[0].borrowed).toBeUndefined();
        ips.push(res.body.items[0].ip as string);
      }
    }
    expect(ips).toEqual(['10.40.0.1', '10.40.0.2', '10.40.0.64', '10.40.0.65', '10.40.0.128', '10.40.0.129', '10.40.0.192', '10.40.0.193']);
    const blocks = await api.http().get('/v1/pools/strict/blocks');
    expect(blocks.status).toBe(200);
    expect(blocks.body).toEqual({
      items: [
        { cidr: '10.40.0.0/26', pool: 'strict', node: 'n1', cluster: 'default', used: 2, borrowed: 0 },
        { cidr: '10.40.0.64/26', pool: 'strict', node: 'n2', cluster: 'default', used: 2, borrowed: 0 },
        { cidr: '10.40.0.128/26', pool: 'strict', node: 'n3', cluster: 'default', used: 2, borrowed: 0 },
        { cidr: '10.40.0.192/26', pool: 'strict', node: 'n4', cluster: 'default', used: 2, borrowed: 0 },
      ],
      continue: null,
    });
    const before = await api.eventCount();
    const fifth = await allocate('strict', 's-n5', 'n5');
    expect(fifth.status).toBe(409);
    expect(fifth.body.code).toBe('POOL_EXHAUSTED');
    expect(fifth.body.message).toMatch(/no block of \/26 is free, and blockAffinity is strict/);
    expect(await api.eventCount()).toBe(before);
  });

  it("under borrow, gives a fifth node an address from another node's block, marked borrowed", async () => {
    await api.http().post('/v1/pools').send({ name: 'borrow', cidr: '10.41.0.0/24', blockSize: 26 }).expect(201);
    for (const node of ['n1', 'n2', 'n3', 'n4']) expect((await allocate('borrow', `b-${node}`, node)).status).toBe(201);
    const fifth = await allocate('borrow', 'b-n5', 'n5');
    expect(fifth.status).toBe(201);
    expect(fifth.body.items[0]).toMatchObject({ ip: '10.41.0.2', node: 'n5', borrowed: true });
    expect((await api.http().get('/v1/allocations/b-n5')).body.items[0]).toMatchObject({ borrowed: true });
    expect((await api.http().get('/v1/pools/borrow/blocks?limit=1')).body).toEqual({
      items: [{ cidr: '10.41.0.0/26', pool: 'borrow', node: 'n1', cluster: 'default', used: 2, borrowed: 1 }],
      continue: expect.any(String),
    });
    // a node's blocks in every pool, paged
    const first = await api.http().get('/v1/nodes/n2/blocks?limit=1');
    const second = await api.http().get(`/v1/nodes/n2/blocks?limit=1&continue=${first.body.continue as string}`);
    expect([...first.body.items, ...second.body.items].map((b: { cidr: string }) => b.cidr)).toEqual(['10.41.0.64/26', '10.40.0.64/26']);
    expect(second.body.continue).toBeNull();
    // replayed at the last event, the listings are the live ones: counts, borrowed and order across pools
    const now = (await api.http().get('/v1/pools/borrow')).body.updatedAt as string;
    expect((await api.http().get(`/v1/pools/borrow/blocks?at=${now}`)).body).toEqual(
      (await api.http().get('/v1/pools/borrow/blocks')).body,
    );
    const firstThen = await api.http().get(`/v1/nodes/n2/blocks?at=${now}&limit=1`);
    const secondThen = await api.http().get(`/v1/nodes/n2/blocks?at=${now}&limit=1&continue=${firstThen.body.continue as string}`);
    expect([firstThen.body, secondThen.body]).toEqual([first.body, second.body]);
  });

  it('releases an emptied block after blockReleaseSeconds, and not before', async () => {
    await api.http().post('/v1/pools').send({ name: 'idle', cidr: '10.42.0.0/24', blockSize: 26, blockReleaseSeconds: 2 }).expect(201);
    expect((await allocate('idle', 'i-1', 'n1')).status).toBe(201);
    await api.http().delete('/v1/allocations/i-1').expect(204);
    const emptied = Date.now();
    const cidrs = async () =>
      (await api.http().get('/v1/pools/idle/blocks')).body.items.map((b: { cidr: string; used: number }) => [b.cidr, b.used]);
    await new Promise((r) => setTimeout(r, 1200));
    expect(await cidrs()).toEqual([['10.42.0.0/26', 0]]);
    while ((await cidrs()).length > 0 && Date.now() - emptied < 10_000) await new Promise((r) => setTimeout(r, 100));
    expect(await cidrs()).toEqual([]);
    // the log shows the delay was kept: released at least 2 s (database time) after the release that emptied it
    const { rows } = await api.db.pool.query(
      `SELECT type, data, recorded_at FROM events WHERE stream_id = 'pool-idle' AND type IN ('IpReleased', 'BlockReleased') ORDER BY version`,
    );
    expect(rows.map((r: { type: string }) => r.type)).toEqual(['IpReleased', 'BlockReleased']);
    expect(rows[1].data).toMatchObject({ cidr: '10.42.0.0/26', node: 'n1', reason: 'idle', emptiedAt: rows[0].recorded_at.toISOString() });
    expect(rows[1].recorded_at.getTime() - rows[0].recorded_at.getTime()).toBeGreaterThanOrEqual(2000);
  });

  it("releases a deleted node's empty blocks, and keeps one that still holds addresses", async () => {
    await api.http().post('/v1/pools').send({ name: 'gone', cidr: '10.43.0.0/29', blockSize: 30 }).expect(201);
    await api.http().put('/v1/nodes/leaving').send({ labels: {} }).expect(200);
    // the /30 blocks of a /29: .1-.3 (the network address excluded) and .4-.6 (the broadcast excluded)
    for (let i = 0; i < 4; i++) expect((await allocate('gone', `g-${i}`, 'leaving')).status).toBe(201);
    await api.http().delete('/v1/allocations/g-3').expect(204);
    await api.http().delete('/v1/nodes/leaving').expect(204);
    expect((await api.http().get('/v1/nodes/leaving/blocks')).body.items).toEqual([
      { cidr: '10.43.0.0/30', pool: 'gone', node: 'leaving', cluster: 'default', used: 3, borrowed: 0 },
    ]);
  });

  it.each([
    [{ blockSize: 24 }, /blockSize 24 must be a prefix length from 25 to 32/],
    [{ blockSize: 27, blockAffinity: 'loose' }, /blockAffinity/],
    [{ blockAffinity: 'strict' }, /need blockSize/],
    [{ blockSize: 26, blockReleaseSeconds: -1 }, /blockReleaseSeconds/],
  ])('refuses %j with 400 and appends nothing', async (fields, message) => {
    const before = await api.eventCount();
    const res = await api
      .http()
      .post('/v1/pools')
      .send({ name: 'bad', cidr: '10.44.0.0/24', ...fields });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(await api.eventCount()).toBe(before);
  });

  it('lists the blocks as they were at an instant (?at=), for a pool and for a node, paged', async () => {
    await api.http().post('/v1/pools').send({ name: 'past', cidr: '10.45.0.0/24', blockSize: 26, blockReleaseSeconds: 0 }).expect(201);
    const created = (await api.http().get('/v1/pools/past')).body.createdAt as string;
    expect((await allocate('past', 'p-1', 'then-1')).status).toBe(201);
    expect((await allocate('past', 'p-2', 'then-2')).status).toBe(201);
    const then = (await api.http().get('/v1/pools/past')).body.updatedAt as string;
    // afterwards: then-1 takes a second address, then-2's block empties and is swept, then-3 claims one
    expect((await allocate('past', 'p-3', 'then-1')).status).toBe(201);
    await api.http().delete('/v1/allocations/p-2').expect(204);
    await eventually(
      async () => (await api.http().get('/v1/nodes/then-2/blocks')).body.items,
      (items) => items.length === 0,
      10_000,
      "then-2's empty block swept",
    );
    expect((await allocate('past', 'p-4', 'then-3')).status).toBe(201);

    const blocksThen = [
      { cidr: '10.45.0.0/26', pool: 'past', node: 'then-1', cluster: 'default', used: 1, borrowed: 0 },
      { cidr: '10.45.0.64/26', pool: 'past', node: 'then-2', cluster: 'default', used: 1, borrowed: 0 },
    ];
    expect((await api.http().get(`/v1/pools/past/blocks?at=${then}`)).body).toEqual({ items: blocksThen, continue: null });
    expect((await api.http().get('/v1/pools/past/blocks')).body.items).toEqual([
      { cidr: '10.45.0.0/26', pool: 'past', node: 'then-1', cluster: 'default', used: 2, borrowed: 0 },
      { cidr: '10.45.0.64/26', pool: 'past', node: 'then-3', cluster: 'default', used: 1, borrowed: 0 },
    ]);
    expect((await api.http().get(`/v1/nodes/then-2/blocks?at=${then}`)).body).toEqual({ items: [blocksThen[1]], continue: null });
    expect((await api.http().get(`/v1/nodes/then-3/blocks?at=${then}`)).body.items).toEqual([]);
    // before its first allocation the pool had no block; before it existed, it is not found
    expect((await api.http().get(`/v1/pools/past/blocks?at=${created}`)).body.items).toEqual([]);
    expect((await api.http().get('/v1/pools/past/blocks?at=2020-01-01T00:00:00Z')).status).toBe(404);

    const first = await api.http().get(`/v1/pools/past/blocks?at=${then}&limit=1`);
    expect(first.body.items).toEqual([blocksThen[0]]);
    const second = await api.http().get(`/v1/pools/past/blocks?at=${then}&limit=1&continue=${first.body.continue}`);
    expect(second.body).toEqual({ items: [blocksThen[1]], continue: null });
    expect((await api.http().get('/v1/pools/past/blocks?at=yesterday')).status).toBe(400);
  });

  it('answers 404 for the blocks of an unknown pool', async () => {
    expect((await api.http().get('/v1/pools/nope/blocks')).status).toBe(404);
  });

  it('replays the log into the same read models, blocks included (replay --verify)', async () => {
    const lines: string[] = [];
    const code = await runCli(['replay', '--verify'], (line) => lines.push(line), { DATABASE_URL: api.db.url });
    expect(lines.at(-1)).toBe(`${await api.eventCount()} events replayed; every read model matches the log`);
    expect(code).toBe(0);
  });
});
