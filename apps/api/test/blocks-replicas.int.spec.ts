import { call, startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

/** Blocks claimed through two API replicas at once, each a real OS process, on one database. */
describe('blocks claimed through two racing replicas', () => {
  let db: TestDatabase;
  const replicas: ApiProcess[] = [];
  beforeAll(async () => {
    db = await createTestDatabase('blocks_replicas');
    replicas.push(...(await Promise.all([0, 1].map(() => startApiProcess(db.url, { from: 'dist' })))));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await db.drop();
  });

  const allocate = (replica: number, pool: string, handle: string, node: string) =>
    call(replicas[replica].base, 'POST', '/v1/allocations', { handle, node, namespace: 'race', pod: handle, pools: [pool] });

  /** Every block claim of the log with no release after it, by CIDR: one node each, or a block went to two. */
  async function claimsByBlock(pool: string): Promise<Map<string, string[]>> {
    const { rows } = await db.pool.query<{ type: string; cidr: string; node: string }>(
      `SELECT type, data ->> 'cidr' AS cidr, data ->> 'node' AS node FROM events WHERE stream_id = $1 AND type IN ('BlockClaimed', 'BlockReleased') ORDER BY version`,
      [`pool-${pool}`],
    );
    const held = new Map<string, string[]>();
    for (const row of rows) {
      if (row.type === 'BlockReleased') held.delete(row.cidr);
      else held.set(row.cidr, [...(held.get(row.cidr) ?? []), row.node]);
    }
    return held;
  }

  it('never gives one block to two nodes: 12 nodes get 12 blocks, then 24 more nodes race for the last 4 under strict', async () => {
    const created = await call(replicas[0].base, 'POST', '/v1/pools', {
      name: 'race',
      cidr: '10.60.0.0/22',
      blockSize: 26,
      blockAffinity: 'strict',
    });
    expect(created.status).toBe(201);
    // 12 nodes, 3 addresses each, all at once, each node's requests split over both replicas
    const first = await Promise.all(
      Array.from({ length: 36 }, (_, i) =>
        allocate(i % 2, 'race', `a-${i}`, `node-${i % 12}`).then((res) => ({ res, node: `node-${i % 12}` })),
      ),
    );
    first.forEach(({ res }) => expect(res.status).toBe(201));
    const blocks = (await call(replicas[1].base, 'GET', '/v1/pools/race/blocks')).body.items as Array<{
      cidr: string;
      node: string;
      used: number;
    }>;
    expect(blocks).toHaveLength(12);
    expect(new Set(blocks.map((b) => b.node)).size).toBe(12);
    expect(blocks.every((b) => b.used === 3)).toBe(true);
    // every address lies in its own node's block
    const blockOf = (ip: string) => `10.60.${ip.split('.')[2]}.${Math.floor(Number(ip.split('.')[3]) / 64) * 64}/26`;
    for (const { res, node } of first) expect(blocks.find((b) => b.cidr === blockOf(res.body.items[0].ip as string))?.node).toBe(node);

    const second = await Promise.all(Array.from({ length: 24 }, (_, i) => allocate(i % 2, 'race', `b-${i}`, `late-${i}`)));
    expect(second.filter((res) => res.status === 201)).toHaveLength(4);
    second.filter((res) => res.status !== 201).forEach((res) => expect(res.body.code).toBe('POOL_EXHAUSTED'));

    // the log itself: each block claimed by exactly one node, 16 blocks in all
    const claims = await claimsByBlock('race');
    expect(claims.size).toBe(16);
    for (const nodes of claims.values()) expect(nodes).toHaveLength(1);
    const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM pool_blocks WHERE pool = $1', ['race']);
    expect(rows[0].n).toBe(16);
  });
});
