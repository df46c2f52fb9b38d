import { randomUUID } from 'node:crypto';
import { Pool, PoolClient } from 'pg';
import { eventually } from '../../../test/support/eventually';
import { leakCheckedPool } from '../../../test/support/leak-checked-pool';
import { createTestDatabase, TestDatabase } from '../../../test/support/test-database';
import { appendToStreams } from './append-to-streams';
import { ConcurrencyError } from './concurrency-error';
import { readStream } from './read-stream';

const added = (amount: number) => ({ type: 'Added', data: { amount } });

describe('appendToStreams', () => {
  let db: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    db = await createTestDatabase('append');
    pool = db.pool;
  });
  afterAll(() => db.drop());

  it('is planned once per connection, not on every call', async () => {
    // one connection, so the prepared statement's plan counters are the ones this test made
    const single = new Pool({ connectionString: db.url, max: 1 });
    try {
      for (let i = 0; i < 8; i++) {
        await appendToStreams(single, [{ streamId: `plan-${i}`, expectedVersion: 0, events: [added(i), added(i)] }]);
      }
      const { rows } = await single.query<{ generic_plans: string }>(
        `SELECT generic_plans FROM pg_prepared_statements WHERE statement LIKE 'insert into events%'`,
      );
      // PostgreSQL tries custom plans five times, then keeps the generic one
      expect(Number(rows[0].generic_plans)).toBeGreaterThanOrEqual(3);
    } finally {
      await single.end();
    }
  });

  it('appends with versions after the expected one and reads the stream back', async () => {
    const eventId = randomUUID();
    const first = await appendToStreams(pool, [
      {
        streamId: 'pool-a',
        expectedVersion: 0,
        events: [
          { type: 'PoolCreated', data: { cidr: '10.0.0.0/24' }, metadata: { actor: 'test' }, eventId },
          { type: 'Added', data: { amount: 1 }, schemaVersion: 2 },
        ],
      },
    ]);
    const second = await appendToStreams(pool, [{ streamId: 'pool-a', expectedVersion: 2, events: [added(2)] }]);

    expect(first.map((event) => event.version)).toEqual([1, 2]);
    expect(first[0]).toMatchObject({
      streamId: 'pool-a',
      eventId,
      type: 'PoolCreated',
      schemaVersion: 1,
      data: { cidr: '10.0.0.0/24' },
      metadata: { actor: 'test' },
    });
    expect(first[0].recordedAt).toBeInstanceOf(Date);
    expect(typeof first[0].position).toBe('number');
    expect(first[1]).toMatchObject({ schemaVersion: 2, metadata: {} });

    const stream = await readStream(pool, 'pool-a');
    expect(stream).toEqual([...first, ...second]);
    expect(await readStream(pool, 'pool-a', 2)).toEqual(second);
    expect(await readStream(pool, 'nobody')).toEqual([]);
  });

  it('refuses an expected version past the stream head, as after a failover to a standby that missed commits', async () => {
    await appendToStreams(pool, [{ streamId: 'short', expectedVersion: 0, events: [added(1), added(2)] }]);
    const ahead = { streamId: 'short', expectedVersion: 3, events: [added(4)] };
    // both ways an append is made: in a transaction, and in one statement with its projections
    for (const options of [{}, { sameStatement: 'nothing as (select 1)' }]) {
      await expect(appendToStreams(pool, [ahead], options)).rejects.toMatchObject({
        streamId: 'short',
        expectedVersion: 3,
        actualVersion: 2,
      });
    }
    await expect(appendToStreams(pool, [ahead])).rejects.toThrow(ConcurrencyError);
    expect((await readStream(pool, 'short')).map((event) => event.version)).toEqual([1, 2]);
  });

  it('refuses a stale expected version', async () => {
    await appendToStreams(pool, [{ streamId: 'stale', expectedVersion: 0, events: [added(1), added(2)] }]);

    const conflict = appendToStreams(pool, [{ streamId: 'stale', expectedVersion: 1, events: [added(3)] }]);
    await expect(conflict).rejects.toThrow(ConcurrencyError);
    await expect(conflict).rejects.toMatchObject({ streamId: 'stale', expectedVersion: 1, actualVersion: 2 });
    await expect(appendToStreams(pool, [{ streamId: 'stale', expectedVersion: 0, events: [added(3)] }])).rejects.toMatchObject({
      streamId: 'stale',
      expectedVersion: 0,
      actualVersion: 2,
    });
    expect(await readStream(pool, 'stale')).toHaveLength(2);
  });

  it('lets exactly one of ten concurrent appends at the same version win', async () => {
    await appendToStreams(pool, [{ streamId: 'race', expectedVersion: 0, events: [added(0)] }]);

    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => appendToStreams(pool, [{ streamId: 'race', expectedVersion: 1, events: [added(i)] }])),
    );

    const won = results.filter((result) => result.status === 'fulfilled');
    const lost = results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(9);
    for (const error of lost) {
      expect(error).toBeInstanceOf(ConcurrencyError);
      expect(error).toMatchObject({ streamId: 'race', expectedVersion: 1 });
    }
    expect((await readStream(pool, 'race')).map((event) => event.version)).toEqual([1, 2]);
  });

  it('turns a clash with an append that committed after our version check into ConcurrencyError', async () => {
    await appendToStreams(pool, [{ streamId: 'late-clash', expectedVersion: 0, events: [added(1)] }]);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const firstInserted = new Promise<void>((resolve) => (inserted = resolve));

    const first = appendToStreams(pool, [{ streamId: 'late-clash', expectedVersion: 1, events: [added(2)] }], {
      inTransaction: async () => {
        inserted();
        await gate;
      },
    });
    await firstInserted;
    // Its check still sees version 1; its insert then waits on the unique index for `first`.
    const second = appendToStreams(pool, [{ streamId: 'late-clash', expectedVersion: 1, events: [added(3)] }]);
    second.catch(() => undefined);
    await waitForLockWaiters(pool, 1);
    release();

    await first;
    await expect(second).rejects.toMatchObject({
      name: 'ConcurrencyError',
      streamId: 'late-clash',
      expectedVersion: 1,
      actualVersion: 2,
    });
  });

  it('appends to several streams atomically and returns events in append order', async () => {
    const recorded = await appendToStreams(pool, [
      { streamId: 'multi-z', expectedVersion: 0, events: [added(1), added(2)] },
      { streamId: 'multi-a', expectedVersion: 0, events: [added(3)] },
    ]);
    expect(recorded.map((event) => [event.streamId, event.version])).toEqual([
      ['multi-z', 1],
      ['multi-z', 2],
      ['multi-a', 1],
    ]);
    // Both streams commit in one transaction.
    expect(new Set(recorded.map((event) => event.transactionId)).size).toBe(1);

    await expect(
      appendToStreams(pool, [
        { streamId: 'multi-z', expectedVersion: 2, events: [added(4)] },
        { streamId: 'multi-a', expectedVersion: 0, events: [added(5)] },
      ]),
    ).rejects.toMatchObject({ name: 'ConcurrencyError', streamId: 'multi-a', expectedVersion: 0, actualVersion: 1 });
    expect(await readStream(pool, 'multi-z')).toHaveLength(2);
    expect(await readStream(pool, 'multi-a')).toHaveLength(1);
  });

  it('checks a stream given without events', async () => {
    await appendToStreams(pool, [{ streamId: 'guard', expectedVersion: 0, events: [added(1)] }]);

    await expect(
      appendToStreams(pool, [
        { streamId: 'guarded-write', expectedVersion: 0, events: [added(1)] },
        { streamId: 'guard', expectedVersion: 0, events: [] },
      ]),
    ).rejects.toMatchObject({ streamId: 'guard', actualVersion: 1 });
    expect(await readStream(pool, 'guarded-write')).toEqual([]);
  });

  it('runs inTransaction inside the append and rolls everything back when it throws', async () => {
    await pool.query('create table inline_projection (stream_id text, version int)');
    const write = async (client: PoolClient, events: { streamId: string; version: number }[]) => {
      for (const event of events) {
        await client.query('insert into inline_projection values ($1, $2)', [event.streamId, event.version]);
      }
    };

    await appendToStreams(pool, [{ streamId: 'inline-ok', expectedVersion: 0, events: [added(1)] }], {
      inTransaction: write,
    });
    const failure = new Error('projection refused');
    const attempt = appendToStreams(
      pool,
      [
        { streamId: 'inline-ok', expectedVersion: 1, events: [added(2)] },
        { streamId: 'inline-new', expectedVersion: 0, events: [added(3)] },
      ],
      {
        inTransaction: async (client, recorded) => {
          await write(client, recorded);
          throw failure;
        },
      },
    );

    await expect(attempt).rejects.toBe(failure);
    expect(await readStream(pool, 'inline-ok')).toHaveLength(1);
    expect(await readStream(pool, 'inline-new')).toEqual([]);
    const { rows } = await pool.query('select stream_id, version from inline_projection');
    expect(rows).toEqual([{ stream_id: 'inline-ok', version: 1 }]);
  });

  it('does not report success when inTransaction swallowed a failed statement', async () => {
    const attempt = appendToStreams(pool, [{ streamId: 'swallowed', expectedVersion: 0, events: [added(1)] }], {
      inTransaction: async (client) => {
        await client.query('select 1/0').catch(() => undefined);
      },
    });

    await expect(attempt).rejects.toThrow(/rolled back/);
    expect(await readStream(pool, 'swallowed')).toEqual([]);
  });

  it('rejects an expected version that is not a non-negative integer, and a stream given twice', async () => {
    await expect(appendToStreams(pool, [{ streamId: 'bad', expectedVersion: -1, events: [added(1)] }])).rejects.toThrow(RangeError);
    await expect(
      appendToStreams(pool, [
        { streamId: 'twice', expectedVersion: 0, events: [added(1)] },
        { streamId: 'twice', expectedVersion: 1, events: [added(2)] },
      ]),
    ).rejects.toThrow(/appears twice/);
  });

  it('keeps events append-only in the database', async () => {
    await appendToStreams(pool, [{ streamId: 'immutable', expectedVersion: 0, events: [added(1)] }]);

    await expect(pool.query("update events set data = '{}' where stream_id = 'immutable'")).rejects.toThrow('events are append-only');
    await expect(pool.query("delete from events where stream_id = 'immutable'")).rejects.toThrow('events are append-only');
    await expect(pool.query('truncate events')).rejects.toThrow('events are append-only');
    expect(await readStream(pool, 'immutable')).toHaveLength(1);
  });

  it('returns its connections to the pool after failures', async () => {
    // a connection kept by a failed append is counted at once; and in a pool of 2 that gives up
    // waiting for a connection, the appends after a second leak would fail on the wait, not on the
    // conflict. Either way the test fails in seconds: the pool's end destroys leaked connections
    // instead of waiting for them (it waited until jest's 60 s timeout)
    const small = leakCheckedPool({ connectionString: db.url, max: 2, connectionTimeoutMillis: 3000 });
    try {
      await appendToStreams(small.pool, [{ streamId: 'leak-check', expectedVersion: 0, events: [added(0)] }]);
      for (let i = 0; i < 25; i++) {
        await expect(appendToStreams(small.pool, [{ streamId: 'leak-check', expectedVersion: 0, events: [added(i)] }])).rejects.toThrow(
          ConcurrencyError,
        );
        expect({ failedAppends: i + 1, connectionsNotReturned: small.checkedOut() }).toEqual({
          failedAppends: i + 1,
          connectionsNotReturned: 0,
        });
      }
      expect(small.pool.idleCount).toBe(small.pool.totalCount);
      await appendToStreams(small.pool, [{ streamId: 'leak-check', expectedVersion: 1, events: [added(1)] }]);
    } finally {
      await small.end();
    }
  });
});

async function waitForLockWaiters(pool: Pool, count: number): Promise<void> {
  await eventually(
    async () =>
      (
        await pool.query<{ waiting: number }>(
          `select count(*)::int as waiting from pg_stat_activity
           where datname = current_database() and wait_event_type = 'Lock'`,
        )
      ).rows[0].waiting,
    (waiting) => waiting >= count,
    10_000,
    `${count} session(s) waiting on a lock`,
  );
}
