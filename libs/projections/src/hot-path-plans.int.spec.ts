import { appendToStreams } from '@ipledger/event-store';
import { sentStatement, type SentStatement } from '../../../test/support/sent-statement';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';
import { findAllocationStarts } from './allocation-start';
import { sameStatementProjection } from './project-events';
import { readHeldSince } from './read-held-since';
import { readPoolCreatedAt } from './read-pool-created-at';
import { unreadStartPrecondition } from './unread-start';

/**
 * The hot path's statements keep one generic plan (prepared.ts), made once for every batch size:
 * priced for 100 rows of their JSON row set, it must still reach pools and allocations by key on
 * tables of thousands of rows, analyzed or as a bulk load leaves them. A hash join over
 * every pool looked cheaper to the planner, and made a lone allocation scan 10,000 pools.
 */
describe.each([
  ['as a bulk load leaves them (none)', false],
  ['analyzed', true],
])('generic plans of the hot path, statistics %s', (_, analyzed) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('hot_path_plans');
    await db.pool.query(`INSERT INTO pools (name, cidr, family, capacity, version, created_at, updated_at)
      SELECT 'p' || i, ('10.' || (i / 256) || '.' || (i % 256) || '.0/24')::cidr, 4, 256, 1, now(), now() FROM generate_series(0, 4999) i`);
    await db.pool.query(`INSERT INTO allocations (handle, family, ip, pool, node, namespace, pod, owner, allocated_at)
      SELECT 'h' || i, 4, ('10.' || (i / 256 / 4) || '.' || (i / 4 % 256) || '.' || (1 + i % 4))::inet, 'p' || (i / 4), 'n', 'ns', 'h' || i, 'pod', now()
      FROM generate_series(0, 19999) i`);
    // a pool's long history: 16 addresses allocated and released in turn, 2,500 times each
    await db.pool.query(`INSERT INTO events (stream_id, version, event_id, type, data)
      SELECT 'pool-long', i, gen_random_uuid(), CASE WHEN i = 1 THEN 'PoolCreated' WHEN i % 2 = 0 THEN 'IpAllocated' ELSE 'IpReleased' END,
             jsonb_build_object('pool', 'long', 'ip', '10.9.0.' || (i / 2 % 16), 'handle', 'h' || i / 2)
      FROM generate_series(1, 80000) i`);
    if (analyzed) await db.pool.query('ANALYZE pools; ANALYZE allocations; ANALYZE events');
  });
  afterAll(() => db.drop());

  async function genericPlan({ text, values }: SentStatement): Promise<string> {
    const client = await db.pool.connect();
    try {
      await client.query('SET plan_cache_mode = force_generic_plan');
      await client.query(`PREPARE hot AS ${text}`);
      const literals = values.map((v) => client.escapeLiteral(Array.isArray(v) ? `{${v.join(',')}}` : String(v))).join(', ');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE hot(${literals})`);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    } finally {
      await client.query('DEALLOCATE ALL; RESET plan_cache_mode');
      client.release();
    }
  }

  const append = (type: 'IpAllocated' | 'IpReleased', precondition?: ReturnType<typeof unreadStartPrecondition>) =>
    sentStatement((fake) =>
      appendToStreams(
        fake,
        [{ streamId: 'pool-p1', expectedVersion: 1, events: [{ type, data: { pool: 'p1', ip: '10.0.1.9', handle: 'x' } }] }],
        {
          sameStatement: sameStatementProjection([type]),
          precondition,
        },
      ),
    );

  it.each(['IpAllocated', 'IpReleased'] as const)('the append of a run of %s reaches its pools and allocations by key', async (type) => {
    const plan = await genericPlan(await append(type));
    expect(plan).toMatch(/Update on pools/);
    expect(plan).not.toMatch(/Seq Scan on (pools|allocations|events)/);
  });

  it('the append of allocations decided without their start read checks handles and reservations by key', async () => {
    const precondition = unreadStartPrecondition([
      { handle: 'h7', namespace: 'ns', statefulSet: 'web', reservationVersion: null },
      { handle: 'h8', namespace: 'ns', statefulSet: null, reservationVersion: null },
      { handle: 'h9', namespace: 'ns', statefulSet: 'db', reservationVersion: 3 },
    ]);
    const plan = await genericPlan(await append('IpAllocated', precondition));
    expect(plan).toMatch(/allocations_pkey/);
    expect(plan).toMatch(/statefulsets_pkey/);
    expect(plan).not.toMatch(/Seq Scan on (pools|allocations|events|statefulsets)/);
  });

  it('the start read reaches allocations, pools and nodes by key', async () => {
    const statement = await sentStatement((fake) =>
      findAllocationStarts(fake, [{ handle: 'h7', namespace: 'ns', statefulSet: null, node: 'n', pools: ['p1'] }]),
    );
    const plan = await genericPlan(statement);
    expect(plan).toMatch(/allocations_pkey/);
    expect(plan).not.toMatch(/Seq Scan on (pools|allocations|nodes|statefulsets)/);
  });

  // a read of the past on a pool of a million events took seconds when these went by address alone (bitmap scan and sort)
  it("time travel's probes are one backward index step each: when each held address was allocated, when the pool was created", async () => {
    const heldSince = await genericPlan(await sentStatement((fake) => readHeldSince(fake, 'pool-long', 80_000, ['10.9.0.3', '10.9.0.7'])));
    expect(heldSince).toMatch(/Index Scan Backward using events_held_since/);
    expect(heldSince).not.toMatch(/Bitmap|Sort|Seq Scan on events/);
    const created = await genericPlan(await sentStatement((fake) => readPoolCreatedAt(fake, 'pool-long', 80_000)));
    expect(created).toMatch(/Index Scan Backward using events_pool_created/);
    expect(created).not.toMatch(/Bitmap|Sort|Seq Scan on events/);
  });
});
