import { readAll, type ReadAllResult } from '@ipledger/event-store';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';
import { SyntheticLog } from '../../../test/support/synthetic-log';
import { projectEvents } from './project-events';
import { rebuildProjections } from './rebuild-projections';
import { verifyProjections } from './verify-projections';

/**
 * The batch projector (behind replay --verify and --rebuild) against projectEvents, the inline
 * path: a varied log decided by the real aggregates, projected event by event into the live
 * tables, must come out of the batch projector row for row the same.
 */
describe('batchProject', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('batch_project');
    await new SyntheticLog(24).write(db.pool, 6000, 500);
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      let after: string | null = null;
      for (;;) {
        const page: ReadAllResult = await readAll(client, { after, limit: 1000, wholeSnapshot: true });
        if (page.events.length === 0) break;
        await projectEvents(client, page.events);
        after = page.next;
      }
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  }, 60_000);
  afterAll(() => db.drop());

  const count = async (sql: string) => Number((await db.pool.query(sql)).rows[0].count);

  it('is given a varied log: every event type, v1 releases, pools deleted and created again', async () => {
    const { rows } = await db.pool.query('SELECT type, schema_version, count(*) FROM events GROUP BY 1, 2');
    const types = rows.map((r) => `${r.type}/${r.schema_version}`);
    expect(types).toEqual(
      expect.arrayContaining([
        'PoolCreated/1',
        'PoolUpdated/1',
        'PoolDeleted/1',
        'IpAllocated/1',
        'IpReleased/1',
        'IpReleased/2',
        'RangeReserved/1',
        'RangeReleased/1',
        'NodeLabelsSet/1',
        'NodeDeleted/1',
        'StatefulSetReconciled/1',
        'StatefulSetDeleted/1',
        'ClusterLabelsSet/1',
        'ClusterDeleted/1',
        'ClaimCreated/1',
        'ClaimPersisted/1',
        'ClaimReferenceAdded/1',
        'ClaimReferenceDropped/1',
        'ClaimDeleted/1',
      ]),
    );
    // the fleet: one handle and one node name in several clusters, and an isolated network over shared CIDRs
    expect(
      await count("SELECT count(*) FROM allocations WHERE cluster <> 'default' GROUP BY handle ORDER BY 1 DESC LIMIT 1"),
    ).toBeGreaterThan(0);
    expect(await count('SELECT count(*) FROM allocations GROUP BY handle ORDER BY 1 DESC LIMIT 1')).toBeGreaterThan(1);
    expect(await count("SELECT count(*) FROM events WHERE type = 'NodeLabelsSet' AND data ? 'cluster'")).toBeGreaterThan(0);
    expect(
      await count("SELECT count(*) FROM pools a JOIN pools b ON a.cidr = b.cidr AND b.network = 'tenant-a' AND a.network IS NULL"),
    ).toBeGreaterThan(0);
    expect(
      await count("SELECT count(*) FROM events WHERE type = 'ClaimReferenceAdded' AND data ->> 'cluster' <> 'default'"),
    ).toBeGreaterThan(0);
    expect(
      await count("SELECT count(*) FROM events WHERE type = 'PoolCreated' GROUP BY data ->> 'name' ORDER BY 1 DESC LIMIT 1"),
    ).toBeGreaterThan(1);
    // pools whose last event is a release: their version comes from an event the batch leaves out
    expect(
      await count(
        `SELECT count(*) FROM pools p WHERE (SELECT type FROM events WHERE stream_id = 'pool-' || p.name ORDER BY version DESC LIMIT 1) = 'IpReleased'`,
      ),
    ).toBeGreaterThan(0);
    expect(await count('SELECT count(*) FROM pools WHERE range_reserved > 0')).toBeGreaterThan(0);
    expect(await count('SELECT count(*) FROM allocations WHERE statefulset IS NOT NULL')).toBeGreaterThan(0);
  });

  it('produces exactly the rows projectEvents produced', async () => {
    const { events, differences } = await verifyProjections(db.pool);
    expect(differences).toEqual([]);
    expect(events).toBe(await count('SELECT count(*) FROM events'));
    for (const table of [
      'pools',
      'pool_labels',
      'pool_ranges',
      'nodes',
      'allocations',
      'statefulsets',
      'clusters',
      'claims',
      'claim_references',
    ]) {
      expect([table, await count(`SELECT count(*) FROM ${table}`)]).not.toEqual([table, 0]);
    }
  });

  it('notices a difference in any column, counts and timestamps included; a rebuild puts them right', async () => {
    await db.pool.query('UPDATE pools SET allocated = allocated + 1 WHERE name = (SELECT min(name) FROM pools)');
    await db.pool.query(
      "UPDATE allocations SET allocated_at = allocated_at + interval '1 millisecond' WHERE (cluster, handle) = (SELECT cluster, handle FROM allocations ORDER BY 1, 2 LIMIT 1)",
    );
    const { differences } = await verifyProjections(db.pool);
    expect(differences.map((d) => `${d.table} ${d.side}`).sort()).toEqual([
      'allocations live only',
      'allocations rebuilt only',
      'pools live only',
      'pools rebuilt only',
    ]);
    const { tables } = await rebuildProjections(db.pool);
    // the pool's row is replaced; its labels, cascaded away with it, go back in
    expect(tables).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ table: 'pools', deleted: 1, inserted: 1 }),
        expect.objectContaining({ table: 'allocations', deleted: 1, inserted: 1 }),
        expect.objectContaining({ table: 'nodes', deleted: 0, inserted: 0 }),
      ]),
    );
    expect((await verifyProjections(db.pool)).differences).toEqual([]);
  });
});
