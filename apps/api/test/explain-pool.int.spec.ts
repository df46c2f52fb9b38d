import { startTestApi, type TestApi } from '../../../test/support/test-api';

/**
 * "Why not pool g2?": GET /v1/nodes/{name}/pools?explain=true&pool=<name> says every reason that
 * keeps the node's allocations from that pool, the rule's own included, which the list of left-out
 * pools never shows (its candidates come from the rule through the labels index).
 */
describe('explain=true&pool=: why one pool is not eligible', () => {
  let api: TestApi;
  const ask = (node: string, query: Record<string, string>) =>
    api
      .http()
      .get(`/v1/nodes/${node}/pools`)
      .query({ explain: 'true', ...query });

  beforeAll(async () => {
    api = await startTestApi('explain_pool');
    const pools = [
      { name: 'g1', cidr: '10.50.0.0/24', labels: { 'pool-group': 'g1', tier: 'web' } },
      { name: 'g2', cidr: '10.50.1.0/24', labels: { 'pool-group': 'g2', tier: 'web' } },
      { name: 'plain', cidr: '10.50.2.0/24' },
      { name: 'off', cidr: '10.50.3.0/24', labels: { 'pool-group': 'g1' }, disabled: true },
      { name: 'zone-b', cidr: '10.50.4.0/24', labels: { 'pool-group': 'g1' }, nodeSelector: 'zone=b' },
      { name: 'six', cidr: 'fd50::/64', labels: { 'pool-group': 'g1' } },
      { name: 'full', cidr: '10.50.5.0/30', labels: { 'pool-group': 'g1' } },
      { name: 'g2-off', cidr: '10.50.6.0/24', labels: { 'pool-group': 'g2' }, disabled: true },
    ];
    for (const pool of pools) await api.http().post('/v1/pools').send(pool).expect(201);
    await api
      .http()
      .put('/v1/nodes/worker-1')
      .send({ labels: { 'pool-group': 'g1', zone: 'a' } })
      .expect(200);
    await api.http().put('/v1/nodes/bare').send({ labels: {} }).expect(200);
    // every address of `full` taken
    for (let i = 0; ; i++) {
      const res = await api
        .http()
        .post('/v1/allocations')
        .send({ handle: `fill-${i}`, node: 'worker-1', namespace: 'ns', pod: `p${i}`, pools: ['full'] });
      if (res.status === 409) break;
      expect(res.status).toBe(201);
    }
    expect((await api.http().get('/v1/pools/full')).body.free).toBe('0');
  });
  afterAll(() => api.close());

  it("names the rule's label when its value differs, where the list leaves the pool out of both items and excluded", async () => {
    const list = await ask('worker-1', { matchLabel: 'pool-group' }).expect(200);
    const named = (body: { items: Array<{ name: string }>; excluded: Array<{ pool: string }> }) => [
      ...body.items.map((p) => p.name),
      ...body.excluded.map((e) => e.pool),
    ];
    expect(named(list.body)).not.toContain('g2');

    const res = await ask('worker-1', { matchLabel: 'pool-group', pool: 'g2' }).expect(200);
    expect(res.body).toEqual({
      items: [],
      excluded: [{ pool: 'g2', reason: 'matchLabel=pool-group: the pool\'s pool-group is "g2", the node\'s is "g1"' }],
      chosenBy: 'request',
    });
  });

  it.each([
    [
      'a pool without the label',
      'worker-1',
      { matchLabel: 'pool-group', pool: 'plain' },
      'matchLabel=pool-group: the pool has no label pool-group (the node\'s is "g1")',
    ],
    [
      'a node without the label',
      'bare',
      { matchLabel: 'pool-group', pool: 'g1' },
      'matchLabel=pool-group: node "bare" has no label pool-group, so the rule chooses no pool',
    ],
    [
      'a selector that does not match',
      'worker-1',
      { poolSelector: 'tier=db', pool: 'g1' },
      'poolSelector "tier=db" does not match the pool\'s labels',
    ],
    ['disabled', 'worker-1', { matchLabel: 'pool-group', pool: 'off' }, 'disabled'],
    [
      'its nodeSelector',
      'worker-1',
      { matchLabel: 'pool-group', pool: 'zone-b' },
      'nodeSelector "zone=b" does not match the node\'s labels',
    ],
    ['the family', 'worker-1', { matchLabel: 'pool-group', pool: 'six', families: '4' }, 'family: pool is IPv6, request wants IPv4'],
    [
      'no free address',
      'worker-1',
      { matchLabel: 'pool-group', pool: 'full' },
      'exhausted: no free address (every address is allocated or reserved)',
    ],
    [
      'every reason at once',
      'worker-1',
      { matchLabel: 'pool-group', pool: 'g2-off' },
      'matchLabel=pool-group: the pool\'s pool-group is "g2", the node\'s is "g1"; disabled',
    ],
  ])('says why for %s', async (_, node, query, reason) => {
    const res = await ask(node, query).expect(200);
    expect(res.body.items).toEqual([]);
    expect(res.body.excluded).toEqual([{ pool: query.pool, reason }]);
  });

  it('holds the pool in items when allocation would take an address of it, and says nothing against it', async () => {
    const res = await ask('worker-1', { matchLabel: 'pool-group', pool: 'g1' }).expect(200);
    expect(res.body.items.map((p: { name: string }) => p.name)).toEqual(['g1']);
    expect(res.body.excluded).toEqual([]);
    // under the server default (every pool) g2 is eligible too
    expect((await ask('worker-1', { pool: 'g2' }).expect(200)).body).toMatchObject({ excluded: [], chosenBy: 'server-default' });
  });

  it('answers 404 POOL_NOT_FOUND for a pool that does not exist, and 400 for a name that cannot be one', async () => {
    const missing = await ask('worker-1', { matchLabel: 'pool-group', pool: 'nope' }).expect(404);
    expect(missing.body).toMatchObject({ code: 'POOL_NOT_FOUND', message: 'pool "nope" does not exist' });
    expect((await ask('worker-1', { pool: 'Not_A_Pool' }).expect(400)).body.code).toBe('INVALID_NAME');
    expect((await ask('worker-1', { pool: 'g1', families: '5' }).expect(400)).body.code).toBe('INVALID_ARGUMENT');
  });

  it("keeps matchLabel's 404 for a node it does not know", async () => {
    expect((await ask('ghost', { matchLabel: 'pool-group', pool: 'g1' }).expect(404)).body.code).toBe('NODE_NOT_FOUND');
  });
});
