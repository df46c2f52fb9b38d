import { sentStatement } from '../../../test/support/sent-statement';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';
import { appendToStreams } from './append-to-streams';
import { readStreams } from './read-streams';

describe('readStreams', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('read_streams');
  });
  afterAll(() => db.drop());

  it('answers each stream above its own version, in version order', async () => {
    const added = (amount: number) => ({ type: 'Added', data: { amount } });
    await appendToStreams(db.pool, [
      { streamId: 'rs-a', expectedVersion: 0, events: [1, 2, 3].map(added) },
      { streamId: 'rs-b', expectedVersion: 0, events: [4, 5].map(added) },
    ]);
    const events = await readStreams(db.pool, [
      { streamId: 'rs-b', version: 0 },
      { streamId: 'rs-a', version: 1 },
      { streamId: 'rs-none', version: 0 },
    ]);
    expect(events.map((e) => [e.streamId, e.version])).toEqual([
      ['rs-b', 1],
      ['rs-b', 2],
      ['rs-a', 2],
      ['rs-a', 3],
    ]);
  });

  it('reads a batch of streams through the stream index on a log not yet analyzed', async () => {
    // 20,000 events as a bulk load leaves them: no statistics
    await db.pool.query(`INSERT INTO events (stream_id, version, event_id, type, data, hash)
      SELECT 'bulk-' || i, k, gen_random_uuid(), 'Added', '{}', '\\x00' FROM generate_series(0, 199) i, generate_series(1, 100) k`);
    const { text, values } = await sentStatement((capture) =>
      readStreams(
        capture,
        Array.from({ length: 32 }, (_, i) => ({ streamId: `bulk-${i}`, version: 0 })),
      ),
    );
    const { rows } = await db.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${text}`, values);
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/events_stream_version_unique/);
    expect(plan).not.toMatch(/Seq Scan on events/);
  });
});
