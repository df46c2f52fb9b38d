import { Pool } from 'pg';
import { createTestDatabase, TestDatabase } from '../../../test/support/test-database';
import { AggregateRepository, AggregateType } from './aggregate-repository';
import { appendToStreams } from './append-to-streams';
import { ConcurrencyError } from './concurrency-error';
import { readSnapshot } from './read-snapshot';
import { readSnapshots } from './read-snapshots';
import { writeSnapshot } from './write-snapshot';
import { readStream } from './read-stream';

interface Counter {
  total: number;
  versions: number[];
}

type CountingType = AggregateType<Counter> & { evolved: number };

function counterType(streamPrefix: string, snapshotEvery?: number): CountingType {
  const type: CountingType = {
    streamPrefix,
    evolved: 0,
    initialState: () => ({ total: 0, versions: [] }),
    evolve(state, event) {
      type.evolved += 1;
      state.total += event.data.amount as number;
      state.versions.push(event.version);
      return state;
    },
    snapshot:
      snapshotEvery === undefined
        ? undefined
        : {
            every: () => snapshotEvery,
            serialize: (state) => state,
            deserialize: (json) => structuredClone(json as Counter),
          },
  };
  return type;
}

const added = (amount: number) => ({ type: 'Added', data: { amount } });

describe('AggregateRepository', () => {
  let db: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    db = await createTestDatabase('aggregate');
    pool = db.pool;
  });
  afterAll(() => db.drop());

  /** What a command handler does: load, decide, append at the loaded version, report the commit. */
  async function execute(repository: AggregateRepository, type: CountingType, id: string, amounts: number[]) {
    const loaded = await repository.load(type, id);
    const recorded = await appendToStreams(pool, [
      { streamId: loaded.streamId, expectedVersion: loaded.version, events: amounts.map(added) },
    ]);
    await repository.committed(type, loaded, recorded);
    return recorded;
  }

  async function fullReplay(type: CountingType, streamId: string): Promise<Counter> {
    return (await readStream(pool, streamId)).reduce((state, event) => type.evolve(state, event), type.initialState());
  }

  function readStreamCalls(spy: jest.SpyInstance): unknown[] {
    // [stream id, after version] of each read (the options that follow are not the point here)
    return spy.mock.calls.map((call) => (typeof call[0] === 'object' ? call[0].values : call[1]).slice(0, 2));
  }

  it('on a cache hit reads only the events after the cached version', async () => {
    const type = counterType('hit');
    const repository = new AggregateRepository(pool);
    const fifty = Array.from({ length: 50 }, () => added(1));
    await appendToStreams(pool, [{ streamId: 'hit-1', expectedVersion: 0, events: fifty }]);

    const first = await repository.load(type, '1');
    expect(first).toMatchObject({ streamId: 'hit-1', version: 50, state: { total: 50 } });
    expect(type.evolved).toBe(50);

    const query = jest.spyOn(pool, 'query');
    try {
      expect((await repository.load(type, '1')).version).toBe(50);
      expect(type.evolved).toBe(50);
      await appendToStreams(pool, [{ streamId: 'hit-1', expectedVersion: 50, events: [added(5)] }]);
      const third = await repository.load(type, '1');
      expect(third).toMatchObject({ version: 51, state: { total: 55 } });
      expect(type.evolved).toBe(51);
      // One indexed read per load, each starting at the cached version.
      expect(readStreamCalls(query)).toEqual([
        ['hit-1', 50],
        ['hit-1', 50],
      ]);
    } finally {
      query.mockRestore();
    }
  });

  it('caches a stream an append created (assumed new) from its own events: neither committed nor the next load reads it again', async () => {
    const type = counterType('created', 10);
    const repository = new AggregateRepository(pool);
    const query = jest.spyOn(pool, 'query');
    try {
      const assumed = repository.assumeNew(type, '1');
      const recorded = await appendToStreams(pool, [{ streamId: assumed.streamId, expectedVersion: 0, events: [added(3), added(4)] }]);
      const before = query.mock.calls.length;
      await repository.committed(type, assumed, recorded);
      expect(query.mock.calls.length).toBe(before);
      expect(repository.cached(type, '1')).toMatchObject({ version: 2, state: { total: 7, versions: [1, 2] } });
      expect(await repository.load(type, '1')).toMatchObject({ version: 2, state: { total: 7 } });
      expect(readStreamCalls(query)).toEqual([['created-1', 2]]);
    } finally {
      query.mockRestore();
    }
  });

  it('moves the cached entry forward on committed without evolving again on the next load', async () => {
    const type = counterType('commit');
    const repository = new AggregateRepository(pool);
    await execute(repository, type, '1', [1, 2]);
    await execute(repository, type, '1', [3]);
    expect(type.evolved).toBe(3);

    const loaded = await repository.load(type, '1');
    expect(loaded).toMatchObject({ version: 3, state: { total: 6, versions: [1, 2, 3] } });
    expect(type.evolved).toBe(3);
  });

  it('lets a second replica see what the first appended, and refuses decisions on stale state', async () => {
    const type = counterType('replica');
    const replicaA = new AggregateRepository(pool);
    const replicaB = new AggregateRepository(pool);

    await execute(replicaA, type, '1', [1, 1, 1]);
    expect(await replicaB.load(type, '1')).toMatchObject({ version: 3, state: { total: 3 } });
    await execute(replicaB, type, '1', [10]);

    const staleDecision = await replicaA.load(type, '1');
    expect(staleDecision).toMatchObject({ version: 4, state: { total: 13 } });
    await execute(replicaB, type, '1', [100]);
    await expect(
      appendToStreams(pool, [{ streamId: staleDecision.streamId, expectedVersion: staleDecision.version, events: [added(1)] }]),
    ).rejects.toThrow(ConcurrencyError);

    expect(await replicaA.load(type, '1')).toMatchObject({
      version: 5,
      state: { total: 113, versions: [1, 2, 3, 4, 5] },
    });
  });

  it('snapshots `every` events after the latest snapshot; a fresh replica loads snapshot + tail', async () => {
    const type = counterType('snap', 10);
    const repository = new AggregateRepository(pool);

    for (let i = 1; i <= 9; i++) await execute(repository, type, '1', [i]);
    expect(await readSnapshot(pool, 'snap-1')).toBeNull();
    await execute(repository, type, '1', [10]);
    expect(await readSnapshot(pool, 'snap-1')).toMatchObject({ version: 10 });

    await execute(repository, type, '1', [11, 12, 13]);
    expect(await readSnapshot(pool, 'snap-1')).toMatchObject({ version: 10 });
    // 13 -> 22 jumps over 20 in one append.
    await execute(repository, type, '1', [14, 15, 16, 17, 18, 19, 20, 21, 22]);
    expect(await readSnapshot(pool, 'snap-1')).toMatchObject({ version: 22 });
    await execute(repository, type, '1', [23, 24, 25]);

    const freshType = counterType('snap', 10);
    const fresh = await new AggregateRepository(pool).load(freshType, '1');
    expect(freshType.evolved).toBe(3);
    expect(fresh.version).toBe(25);
    expect(fresh.state).toEqual(await fullReplay(counterType('snap'), 'snap-1'));
    expect(fresh.state.total).toBe((25 * 26) / 2);

    // a batch load reads the snapshots of the streams it does not hold in one query, then the tails
    const manyType = counterType('snap', 10);
    const [viaMany] = await new AggregateRepository(pool).loadMany(manyType, ['1']);
    expect(manyType.evolved).toBe(3);
    expect(viaMany).toEqual(fresh);
  });

  it("replays from the start a stream whose snapshot its type cannot read (a newer release's), then writes one it can", async () => {
    const reader = () => {
      const type = counterType('snap-unread', 5);
      // this release's counters have no format field: one a newer release wrote is not readable
      type.snapshot!.deserialize = (json) => ('format' in (json as object) ? null : structuredClone(json as Counter));
      return type;
    };
    await appendToStreams(pool, [{ streamId: 'snap-unread-1', expectedVersion: 0, events: [1, 2, 3, 4, 5, 6].map(added) }]);
    await writeSnapshot(pool, 'snap-unread-1', 6, { format: 3, counted: 'not as this release counts' });
    const replayed = await fullReplay(counterType('snap-unread'), 'snap-unread-1');

    const type = reader();
    const repository = new AggregateRepository(pool);
    expect(await repository.load(type, '1')).toMatchObject({ version: 6, state: replayed });
    expect(type.evolved).toBe(6);
    const manyType = reader();
    expect((await new AggregateRepository(pool).loadMany(manyType, ['1']))[0]).toMatchObject({ version: 6, state: replayed });
    expect(manyType.evolved).toBe(6);

    // the next commit is `every` past no readable snapshot: it writes one this release reads
    await execute(repository, type, '1', [7]);
    expect(await readSnapshot(pool, 'snap-unread-1')).toEqual({
      version: 7,
      state: await fullReplay(counterType('snap-unread'), 'snap-unread-1'),
    });
  });

  it('keeps every snapshot as a row of its own; the newest version wins, whatever the order they were written in', async () => {
    await writeSnapshot(pool, 'rows-1', 20, { total: 20 });
    await writeSnapshot(pool, 'rows-1', 10, { total: 10 });
    await writeSnapshot(pool, 'rows-1', 20, { total: -1 });
    const { rows } = await pool.query("SELECT version, state FROM stream_snapshots WHERE stream_id = 'rows-1' ORDER BY version");
    expect(rows).toEqual([
      { version: 10, state: { total: 10 } },
      { version: 20, state: { total: 20 } },
    ]);
    expect(await readSnapshot(pool, 'rows-1')).toEqual({ version: 20, state: { total: 20 } });
    expect((await readSnapshots(pool, ['rows-1'])).get('rows-1')).toEqual({ version: 20, state: { total: 20 } });
  });

  it('spaces snapshots by the state when `every` is a function of it', async () => {
    const type = counterType('snap-grow', 10);
    // a state whose snapshot grows with its total: 10 events apart while small, then its total apart
    type.snapshot!.every = (state: Counter) => Math.max(10, state.total);
    const repository = new AggregateRepository(pool);
    const ones = new Array<number>(10).fill(1);
    const zeros = new Array<number>(48).fill(0);
    const snapshotVersion = async () => (await readSnapshot(pool, 'snap-grow-1'))?.version;

    await execute(repository, type, '1', ones);
    expect(await snapshotVersion()).toBe(10);
    // total 50 from version 11: the next snapshot is 50 events after the one at 10
    await execute(repository, type, '1', [40]);
    await execute(repository, type, '1', zeros);
    expect(await snapshotVersion()).toBe(10);
    await execute(repository, type, '1', [0]);
    expect(await snapshotVersion()).toBe(60);
  });

  it('with trustCache, answers cached streams without a read, and an append on a stale entry fails', async () => {
    const type = counterType('trust');
    const replicaA = new AggregateRepository(pool);
    const replicaB = new AggregateRepository(pool);
    await execute(replicaA, type, '1', [1]);
    await execute(replicaB, type, '1', [10]);

    const query = jest.spyOn(pool, 'query');
    let trusted: Awaited<ReturnType<typeof replicaA.loadMany<Counter>>>;
    try {
      // '2' is not cached: it alone is read
      trusted = await replicaA.loadMany(type, ['1', '2'], { trustCache: true });
      expect(readStreamCalls(query)).toEqual([[['trust-2'], [0]]]);
    } finally {
      query.mockRestore();
    }
    // replica B's event is not in A's cache: the append at that version clashes
    expect(trusted[0]).toMatchObject({ version: 1, state: { total: 1 } });
    await expect(appendToStreams(pool, [{ streamId: 'trust-1', expectedVersion: trusted[0].version, events: [added(1)] }])).rejects.toThrow(
      ConcurrencyError,
    );
    // without trustCache the load reads the tail and sees B's event
    const [fresh] = await replicaA.loadMany(type, ['1']);
    expect(fresh).toMatchObject({ version: 2, state: { total: 11 } });
  });

  it('catches up from the database to snapshot when its cache missed the appended events', async () => {
    const type = counterType('snap-miss', 5);
    const repository = new AggregateRepository(pool);
    const loaded = await repository.load(type, '1');
    const recorded = await appendToStreams(pool, [
      { streamId: loaded.streamId, expectedVersion: 0, events: [1, 2, 3, 4, 5, 6].map(added) },
    ]);
    repository.forget(loaded.streamId);

    await repository.committed(type, loaded, recorded);

    const snapshot = await readSnapshot(pool, 'snap-miss-1');
    expect(snapshot).toEqual({ version: 6, state: await fullReplay(counterType('snap-miss'), 'snap-miss-1') });
  });

  it('evicts the least recently used streams beyond the memory bound', async () => {
    // each state is estimated at 100 bytes: two fit in 250
    const type = counterType('lru');
    type.sizeOf = () => 100;
    const repository = new AggregateRepository(pool, { cacheBytes: 250 });
    for (const id of ['x', 'y', 'z']) {
      await appendToStreams(pool, [{ streamId: `lru-${id}`, expectedVersion: 0, events: [1, 2, 3, 4, 5].map(added) }]);
    }

    await repository.load(type, 'x');
    await repository.load(type, 'y');
    await repository.load(type, 'x'); // x is now the most recent: z evicts y
    await repository.load(type, 'z');
    expect(type.evolved).toBe(15);

    await repository.load(type, 'x');
    expect(type.evolved).toBe(15);
    await repository.load(type, 'y');
    expect(type.evolved).toBe(20);
    expect(repository.cachedSize).toBe(200);
  });

  it('keeps one state larger than the bound while it is in use, and lets it go for the next', async () => {
    const type = counterType('huge');
    type.sizeOf = (state) => (state.total > 100 ? 10_000 : 100);
    const repository = new AggregateRepository(pool, { cacheBytes: 1000 });
    await appendToStreams(pool, [{ streamId: 'huge-small', expectedVersion: 0, events: [1].map(added) }]);
    await appendToStreams(pool, [{ streamId: 'huge-big', expectedVersion: 0, events: [500].map(added) }]);
    await repository.load(type, 'small');
    await repository.load(type, 'big');
    expect(repository.cachedSize).toBe(10_000);
    await repository.load(type, 'small');
    expect(repository.cachedSize).toBe(100);
    expect(type.evolved).toBe(3);
  });

  it('applies each event once when loads of the same stream overlap', async () => {
    const type = counterType('overlap');
    const repository = new AggregateRepository(pool);
    await appendToStreams(pool, [{ streamId: 'overlap-1', expectedVersion: 0, events: [1, 2].map(added) }]);
    await repository.load(type, '1');
    await appendToStreams(pool, [{ streamId: 'overlap-1', expectedVersion: 2, events: [3, 4, 5].map(added) }]);

    const loads = await Promise.all([1, 2, 3].map(() => repository.load(type, '1')));

    for (const loaded of loads) {
      expect(loaded).toMatchObject({ version: 5, state: { total: 15, versions: [1, 2, 3, 4, 5] } });
    }
    expect(type.evolved).toBe(5);
  });

  it('drops an entry whose evolve threw, so a half-applied state is never served', async () => {
    const type = counterType('broken');
    const repository = new AggregateRepository(pool);
    await appendToStreams(pool, [{ streamId: 'broken-1', expectedVersion: 0, events: [added(1)] }]);
    await repository.load(type, '1');
    await appendToStreams(pool, [{ streamId: 'broken-1', expectedVersion: 1, events: [added(2)] }]);

    const evolve = type.evolve.bind(type);
    type.evolve = (state) => {
      state.total = -1;
      throw new Error('bug in evolve');
    };
    await expect(repository.load(type, '1')).rejects.toThrow('bug in evolve');
    type.evolve = evolve;

    expect(await repository.load(type, '1')).toMatchObject({ version: 2, state: { total: 3, versions: [1, 2] } });
  });

  it('ignores recorded events of other streams in committed', async () => {
    const type = counterType('multi');
    const repository = new AggregateRepository(pool);
    const loaded = await repository.load(type, '1');
    const recorded = await appendToStreams(pool, [
      { streamId: 'other-stream', expectedVersion: 0, events: [added(100)] },
      { streamId: loaded.streamId, expectedVersion: 0, events: [added(7)] },
    ]);
    await repository.committed(type, loaded, recorded);

    expect(await repository.load(type, '1')).toMatchObject({ version: 1, state: { total: 7 } });
    expect(type.evolved).toBe(1);
  });
});
