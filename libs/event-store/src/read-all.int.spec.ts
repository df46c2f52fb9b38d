import { Pool } from 'pg';
import { createTestDatabase, TestDatabase } from '../../../test/support/test-database';
import { eventually } from '../../../test/support/eventually';
import { appendToStreams, StreamAppend } from './append-to-streams';
import { InvalidCursorError, readAll } from './read-all';
import { RecordedEvent } from './recorded-event';

const event = (type: string, n = 0) => ({ type, data: { n } });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('readAll', () => {
  let db: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    db = await createTestDatabase('readall');
    pool = db.pool;
  });
  afterAll(() => db.drop());

  /** The cursor at the current end of the log, so each test reads only what it appends. */
  async function endOfLog(): Promise<string | null> {
    let cursor: string | null = null;
    for (;;) {
      const page = await readAll(pool, { after: cursor, limit: 1000 });
      if (page.events.length === 0) return cursor;
      cursor = page.next;
    }
  }

  const readAfter = (after: string | null, count: number) =>
    eventually(
      () => readAll(pool, { after, limit: 1000 }),
      (page) => page.events.length >= count,
    );

  it('pages through the log in order with an opaque cursor', async () => {
    const start = await endOfLog();
    const batches: StreamAppend[][] = [
      [{ streamId: 'page-1', expectedVersion: 0, events: [event('A', 1), event('B', 2)] }],
      [{ streamId: 'page-2', expectedVersion: 0, events: [event('A', 3)] }],
      [
        { streamId: 'page-1', expectedVersion: 2, events: [event('C', 4)] },
        { streamId: 'page-2', expectedVersion: 1, events: [event('B', 5), event('A', 6)] },
      ],
      [{ streamId: 'page-3', expectedVersion: 0, events: [event('A', 7)] }],
    ];
    const appended: RecordedEvent[] = [];
    for (const batch of batches) appended.push(...(await appendToStreams(pool, batch)));
    await readAfter(start, appended.length);

    const pages: RecordedEvent[][] = [];
    let cursor = start;
    for (;;) {
      const page = await readAll(pool, { after: cursor, limit: 3 });
      if (page.events.length === 0) {
        expect(page.next).toBe(cursor);
        break;
      }
      expect(page.next).not.toBe(cursor);
      pages.push(page.events);
      cursor = page.next;
    }

    expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(appended);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('starts from the beginning without a cursor and returns a null cursor on an empty result', async () => {
    const all = await readAll(pool, { limit: 1, types: ['NoSuchType'] });
    expect(all).toEqual({ events: [], next: null });
    const first = await readAll(pool, { after: null, limit: 1 });
    expect(first.events[0].position).toBe(1);
  });

  it('filters by stream, by types and by recorded time', async () => {
    const start = await endOfLog();
    const [early] = await appendToStreams(pool, [{ streamId: 'filter-1', expectedVersion: 0, events: [event('Keep', 1)] }]);
    await sleep(20);
    await appendToStreams(pool, [
      { streamId: 'filter-1', expectedVersion: 1, events: [event('Drop', 2), event('Keep', 3)] },
      { streamId: 'filter-2', expectedVersion: 0, events: [event('Keep', 4), event('Other', 5)] },
    ]);
    await readAfter(start, 5);

    const byStream = await readAll(pool, { after: start, limit: 100, streamId: 'filter-2' });
    expect(byStream.events.map((e) => e.data.n)).toEqual([4, 5]);

    const byTypes = await readAll(pool, { after: start, limit: 100, types: ['Keep', 'Other'] });
    expect(byTypes.events.map((e) => e.data.n)).toEqual([1, 3, 4, 5]);

    const both = await readAll(pool, { after: start, limit: 1, streamId: 'filter-1', types: ['Keep'] });
    expect(both.events.map((e) => e.data.n)).toEqual([1]);
    const rest = await readAll(pool, { after: both.next, limit: 10, streamId: 'filter-1', types: ['Keep'] });
    expect(rest.events.map((e) => e.data.n)).toEqual([3]);

    // recorded_at has microseconds, a Date only milliseconds.
    const until = new Date(early.recordedAt.getTime() + 1);
    const byTime = await readAll(pool, { after: start, limit: 100, until });
    expect(byTime.events.map((e) => e.data.n)).toEqual([1]);
  });

  it('refuses a malformed cursor, quoting it', async () => {
    const notOurs = [
      'not a cursor',
      '',
      Buffer.from('12:abc').toString('base64url'),
      Buffer.from('12:34').toString('base64url') + '*',
      Buffer.from('12:99999999999999999999').toString('base64url'),
    ];
    for (const cursor of notOurs) {
      const read = readAll(pool, { after: cursor, limit: 10 });
      await expect(read).rejects.toThrow(InvalidCursorError);
      await expect(read).rejects.toThrow(`"${cursor}"`);
    }
    await expect(readAll(pool, { limit: 0 })).rejects.toThrow(RangeError);
  });

  it('never skips an event whose transaction commits after a later one', async () => {
    const start = await endOfLog();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let insertedA!: (recorded: RecordedEvent[]) => void;
    const aInserted = new Promise<RecordedEvent[]>((resolve) => (insertedA = resolve));

    // A inserts first, then holds its transaction open.
    const a = appendToStreams(pool, [{ streamId: 'late-a', expectedVersion: 0, events: [event('A')] }], {
      inTransaction: async (_client, recorded) => {
        insertedA(recorded);
        await gate;
      },
    });
    const [pendingA] = await aInserted;
    // B starts later and commits first.
    const [b] = await appendToStreams(pool, [{ streamId: 'late-b', expectedVersion: 0, events: [event('B')] }]);
    expect(b.position).toBeGreaterThan(pendingA.position);
    expect(BigInt(b.transactionId)).toBeGreaterThan(BigInt(pendingA.transactionId));

    // A `position > last` reader would return B now and then step over A forever.
    const whileAOpen = await readAll(pool, { after: start, limit: 100 });
    expect(whileAOpen).toEqual({ events: [], next: start });

    release();
    await a;
    const afterCommit = await readAfter(whileAOpen.next, 2);
    expect(afterCommit.events.map((e) => e.streamId)).toEqual(['late-a', 'late-b']);
    expect(afterCommit.events.map((e) => e.eventId)).toEqual([pendingA.eventId, b.eventId]);
  });

  it('orders by transaction, not by position, when positions interleave', async () => {
    const start = await endOfLog();
    // A takes its transaction id before B but inserts after B: lower transaction id, higher position.
    const clientA = await pool.connect();
    try {
      await clientA.query('begin');
      const { rows } = await clientA.query<{ xid: string }>('select pg_current_xact_id()::text as xid');
      const [b] = await appendToStreams(pool, [{ streamId: 'order-b', expectedVersion: 0, events: [event('B')] }]);
      const { rows: inserted } = await clientA.query<{ position: string }>(
        `insert into events (stream_id, version, event_id, type, data)
         values ('order-a', 1, gen_random_uuid(), 'A', '{}') returning position`,
      );
      expect(Number(inserted[0].position)).toBeGreaterThan(b.position);
      expect(BigInt(rows[0].xid)).toBeLessThan(BigInt(b.transactionId));

      expect((await readAll(pool, { after: start, limit: 100 })).events).toEqual([]);
      await clientA.query('commit');
    } finally {
      clientA.release();
    }

    const page = await readAfter(start, 2);
    expect(page.events.map((e) => e.streamId)).toEqual(['order-a', 'order-b']);
  });
});
