import { LabelSelector } from '@ipledger/domain';
import { poolPageSql, type PoolFilter } from '@ipledger/projections';
import { GROUP_SIZE, groupOf, poolName, seedPools } from '../../../test/support/seed-pools';
import { startTestApi, type TestApi } from '../../../test/support/test-api';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

describe('label-indexed pool selection with 10,000 pools', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi('selection');
    await seedPools(api.app, 10_000);
    // both tables: an autovacuum ANALYZE of pool_labels midway through the seed would leave stale statistics
    await api.db.pool.query('ANALYZE pools, pool_labels');
  }, 240_000);
  afterAll(() => api.close());

  const explain = async (filter: PoolFilter) => {
    const { text, values } = poolPageSql(filter, null, 101);
    const { rows } = await api.db.pool.query(`EXPLAIN (FORMAT JSON) ${text}`, values);
    return nodes(rows[0]['QUERY PLAN'][0].Plan);
  };

  it.each([
    ['matchLabel=pool-group for node-77', { sameLabelAs: { node: 'node-77', cluster: 'default', key: 'pool-group' } }],
    ['pool-group=group-77', { labelSelector: LabelSelector.parse('pool-group=group-77') }],
    ['pool-group in (group-3, group-9)', { labelSelector: LabelSelector.parse('pool-group in (group-3, group-9)') }],
    ['pool-group=group-5,tier!=gold', { labelSelector: LabelSelector.parse('pool-group=group-5,tier!=gold') }],
  ])('answers %s through the pool_labels index, never a sequential scan', async (_, filter) => {
    const plan = await explain(filter);
    expect(plan.some((n) => n['Index Name'] === 'pool_labels_pkey')).toBe(true);
    expect(plan.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
  });

  it('gives a node the pools of its own group, through matchLabel', async () => {
    const res = await api.http().get('/v1/nodes/node-77/pools').query({ matchLabel: 'pool-group' });
    expect(res.status).toBe(200);
    const group = Array.from({ length: GROUP_SIZE }, (_, i) => poolName(77 * GROUP_SIZE + i));
    expect(res.body.items.map((p: { name: string }) => p.name)).toEqual(group);
    res.body.items.forEach((p: { labels: Record<string, string> }) => expect(p.labels['pool-group']).toBe('group-77'));
    const alloc = await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 'h', node: 'node-77', namespace: 'ns', pod: 'p', matchLabel: 'pool-group' });
    expect(alloc.status).toBe(201);
    expect(alloc.body.items[0].pool).toBe(group[0]);
  });

  it('applies label changes on nodes (PUT) and pools (PATCH) to the next allocation', async () => {
    await api
      .http()
      .put('/v1/nodes/node-mover')
      .send({ labels: { 'pool-group': 'group-3' } })
      .expect(200);
    const before = await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 'm1', node: 'node-mover', namespace: 'ns', pod: 'm1', matchLabel: 'pool-group' });
    expect(before.body.items[0].pool).toBe(poolName(3 * GROUP_SIZE));
    await api
      .http()
      .put('/v1/nodes/node-mover')
      .send({ labels: { 'pool-group': 'group-4' } })
      .expect(200);
    const after = await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 'm2', node: 'node-mover', namespace: 'ns', pod: 'm2', matchLabel: 'pool-group' });
    expect(after.body.items[0].pool).toBe(poolName(4 * GROUP_SIZE));

    // move the first pool of group-4 out of the group: the next allocation skips it
    await api
      .http()
      .patch(`/v1/pools/${poolName(4 * GROUP_SIZE)}`)
      .send({ labels: { 'pool-group': 'elsewhere' } })
      .expect(200);
    const moved = await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 'm3', node: 'node-mover', namespace: 'ns', pod: 'm3', matchLabel: 'pool-group' });
    expect(moved.body.items[0].pool).toBe(poolName(4 * GROUP_SIZE + 1));
    const listed = await api.http().get('/v1/pools').query({ labelSelector: 'pool-group=elsewhere' });
    expect(listed.body.items.map((p: { name: string }) => p.name)).toEqual([poolName(4 * GROUP_SIZE)]);
  });

  it('applies IPAM_DEFAULT_MATCH_LABEL when a request names no rule', async () => {
    const withDefault = await startTestApi('selection_default', { env: { IPAM_DEFAULT_MATCH_LABEL: 'pool-group' } });
    try {
      await seedPools(withDefault.app, 2 * GROUP_SIZE);
      const res = await withDefault.http().post('/v1/allocations').send({ handle: 'd', node: 'node-1', namespace: 'ns', pod: 'd' });
      expect(res.body.items[0].pool).toBe(poolName(GROUP_SIZE));
      const noLabel = await withDefault.http().put('/v1/nodes/bare').send({ labels: {} });
      expect(noLabel.status).toBe(200);
      const refused = await withDefault.http().post('/v1/allocations').send({ handle: 'e', node: 'bare', namespace: 'ns', pod: 'e' });
      expect(refused.body).toMatchObject({ code: 'NO_ELIGIBLE_POOL', message: expect.stringContaining('has no label "pool-group"') });
      const unknown = await withDefault.http().post('/v1/allocations').send({ handle: 'f', node: 'ghost', namespace: 'ns', pod: 'f' });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('NODE_NOT_FOUND');
    } finally {
      await withDefault.close();
    }
  });

  it('chooses by poolSelector over pool labels, in name order, with the always-applied rules', async () => {
    const base = 9_000;
    await api
      .http()
      .patch(`/v1/pools/${poolName(base)}`)
      .send({ labels: { 'pool-group': groupOf(base), tier: 'gold' } })
      .expect(200);
    await api
      .http()
      .patch(`/v1/pools/${poolName(base + 1)}`)
      .send({ labels: { 'pool-group': groupOf(base + 1), tier: 'silver' } })
      .expect(200);
    await api
      .http()
      .patch(`/v1/pools/${poolName(base + 2)}`)
      .send({ labels: { 'pool-group': groupOf(base + 2), tier: 'gold' }, disabled: true })
      .expect(200);
    await api.http().put('/v1/nodes/node-sel').send({ labels: {} }).expect(200);

    const pools = async (poolSelector: string) =>
      (await api.http().get('/v1/nodes/node-sel/pools').query({ poolSelector, explain: true })).body;
    const gold = await pools('tier=gold');
    expect(gold.items.map((p: { name: string }) => p.name)).toEqual([poolName(base)]);
    expect(gold.excluded).toEqual([{ pool: poolName(base + 2), reason: 'disabled' }]);
    expect((await pools('tier in (gold, silver),tier!=gold')).items.map((p: { name: string }) => p.name)).toEqual([poolName(base + 1)]);
    expect((await pools('tier notin (gold),tier')).items.map((p: { name: string }) => p.name)).toEqual([poolName(base + 1)]);

    const res = await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 'sel-1', node: 'node-sel', namespace: 'ns', pod: 's', poolSelector: 'tier=gold' });
    expect(res.status).toBe(201);
    expect(res.body.items[0].pool).toBe(poolName(base));
    const none = await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 'sel-2', node: 'node-sel', namespace: 'ns', pod: 's', poolSelector: 'tier=bronze' });
    expect(none.status).toBe(409);
    expect(none.body).toMatchObject({ code: 'NO_ELIGIBLE_POOL', message: expect.stringContaining('poolSelector "tier=bronze"') });
  });

  it('says "family" for pools of the other family', async () => {
    await api
      .http()
      .post('/v1/pools')
      .send({ name: 'v6-only', cidr: 'fd77::/64', labels: { tier: 'v6' } })
      .expect(201);
    const res = await api
      .http()
      .post('/v1/allocations')
      .send({ handle: 'fam', node: 'node-sel', namespace: 'ns', pod: 'f', poolSelector: 'tier=v6' });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain('v6-only: family: pool is IPv6, request wants IPv4');
  });
});
