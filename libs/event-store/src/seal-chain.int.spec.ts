import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';
import { sealChain, type SealRound } from './seal-chain';

/** sealChain from a head held in memory, as each API replica runs it (apps/api/src/audit/chain-sealer.ts). */
describe('sealChain from the head a sealer holds', () => {
  let db: TestDatabase;
  beforeEach(async () => (db = await createTestDatabase('seal_chain')));
  afterEach(() => db.drop());

  const append = (n: number, stream: string) =>
    db.pool.query(
      `INSERT INTO events (stream_id, version, event_id, type, data)
       SELECT $1, i, gen_random_uuid(), 'AuditProbe', '{}' FROM generate_series(1, $2::int) i ORDER BY i`,
      [stream, n],
    );
  const seen = (round: SealRound) => ({ sealed: round.sealed, count: round.head?.count, behind: round.behind, break: round.break });
  const links = async () => Number((await db.pool.query('SELECT count(*) FROM event_links')).rows[0].count);

  it("checks another sealer's links a page at a time, and seals on only once it has checked them all", async () => {
    await append(25, 's');
    const a = await sealChain(db.pool, { limit: 10 });
    expect(seen(a)).toEqual({ sealed: 10, count: 10, behind: false, break: null });
    // another replica seals the rest
    let b = await sealChain(db.pool, { limit: 10, sealed: a.head });
    b = await sealChain(db.pool, { limit: 10, sealed: b.head });
    expect(b.head?.count).toBe(25);
    await append(3, 't');
    const a2 = await sealChain(db.pool, { limit: 10, sealed: a.head });
    expect(seen(a2)).toEqual({ sealed: 0, count: 20, behind: true, break: null });
    const a3 = await sealChain(db.pool, { limit: 10, sealed: a2.head });
    expect(seen(a3)).toEqual({ sealed: 3, count: 28, behind: false, break: null });
    expect(await links()).toBe(28);
  });

  it('takes no link of another sealer on trust: one that does not chain over its event stops sealing, and nothing is added', async () => {
    await append(5, 's');
    const a = await sealChain(db.pool);
    await append(2, 't');
    // a link 6 that extends the head held, but whose hash no event gives
    await db.pool.query(
      `INSERT INTO event_links (seq, position, transaction_id, hash)
       SELECT 6, position, transaction_id, sha256('forged') FROM events WHERE stream_id = 't' AND version = 1`,
    );
    const round = await sealChain(db.pool, { sealed: a.head });
    expect(round.sealed).toBe(0);
    expect(round.head).toEqual(a.head);
    expect(round.break).toEqual({
      link: 6,
      message: expect.stringMatching(/^link 6 \(position \d+, t version 1\): the event or its link changed since it was sealed/),
    });
    expect(await links()).toBe(6);
  });
});
