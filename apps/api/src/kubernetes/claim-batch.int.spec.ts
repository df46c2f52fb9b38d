import type { ClusterChange } from './kube-message';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database';
import { ClaimBatch } from './claim-batch';
import { StaleMessage } from './kubernetes-objects';

const pod = (name: string, uid = `uid-${name}`, resourceVersion = '1'): ClusterChange => ({
  cluster: 'default',
  kind: 'pod',
  type: 'ADDED',
  object: {
    metadata: { name, namespace: 'ns', uid, resourceVersion, creationTimestamp: '2026-12-02T10:00:00Z' },
    spec: { nodeName: 'n1' },
  },
});

/** The batched record of live pods, against a real PostgreSQL: one statement for many, each answered after it. */
describe('ClaimBatch', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('claim_batch');
  });
  afterAll(async () => {
    await db.drop();
  });

  const rows = async () =>
    (
      await db.pool.query<{ key: string; seq: string; status: string; created: string | null }>(
        `SELECT key, stream_sequence AS seq, status, object->'metadata'->>'creationTimestamp' AS created
           FROM kubernetes_objects WHERE kind = 'pod' ORDER BY stream_sequence`,
      )
    ).rows;

  it('records the pods that meet in one statement, each answered only once it committed', async () => {
    const batch = new ClaimBatch(db.pool);
    const statements: string[] = [];
    const query = db.pool.query.bind(db.pool);
    const spy = jest.spyOn(db.pool, 'query').mockImplementation(((text: string, values: unknown) => {
      statements.push(text);
      return query(text, values as unknown[]);
    }) as never);
    try {
      const answers = await Promise.all(
        Array.from({ length: 500 }, (_, i) =>
          batch.record({ change: pod(`p-${i}`), streamEpoch: 0, streamSequence: 1000 + i, status: 'seen' }).then(async () => {
            // answered after the commit: the row is there for anyone to read
            const { rowCount } = await query(`SELECT 1 FROM kubernetes_objects WHERE kind = 'pod' AND key = $1`, [`ns/p-${i}`]);
            return rowCount;
          }),
        ),
      );
      expect(answers.every((n) => n === 1)).toBe(true);
    } finally {
      spy.mockRestore();
    }
    // the checks above go through `query` unspied: every statement counted here is the batch's
    expect(statements.length).toBeLessThanOrEqual(2);
    expect(await rows()).toHaveLength(500);
    expect((await rows())[0]).toEqual({ key: 'ns/p-0', seq: '1000', status: 'seen', created: '2026-12-02T10:00:00Z' });
  });

  it('keeps the newest message of an object: an older one (a redelivery) is answered stale and changes nothing', async () => {
    const batch = new ClaimBatch(db.pool);
    await batch.record({ change: pod('p-1', 'uid-new', '9'), streamEpoch: 0, streamSequence: 5000, status: 'seen' });
    await expect(
      batch.record({ change: pod('p-1', 'uid-p-1', '1'), streamEpoch: 0, streamSequence: 1001, status: 'seen' }),
    ).rejects.toBeInstanceOf(StaleMessage);
    // the same message again is harmless
    await batch.record({ change: pod('p-1', 'uid-new', '9'), streamEpoch: 0, streamSequence: 5000, status: 'seen' });
    const { rows: p1 } = await db.pool.query(`SELECT uid, stream_sequence FROM kubernetes_objects WHERE kind = 'pod' AND key = 'ns/p-1'`);
    expect(p1).toEqual([{ uid: 'uid-new', stream_sequence: '5000' }]);
  });

  it('of two messages of one object that meet, keeps the one of the newer stream (made again), though its sequence is lower', async () => {
    const batch = new ClaimBatch(db.pool);
    const [old, again] = await Promise.allSettled([
      batch.record({ change: pod('p-2', 'uid-old', '5'), streamEpoch: 0, streamSequence: 7000, status: 'seen' }),
      batch.record({ change: pod('p-2', 'uid-again', '6'), streamEpoch: 1, streamSequence: 2, status: 'seen' }),
    ]);
    expect(old).toMatchObject({ status: 'rejected', reason: expect.any(StaleMessage) });
    expect(again).toEqual({ status: 'fulfilled', value: undefined });
    const { rows: p2 } = await db.pool.query(
      `SELECT uid, stream_epoch, stream_sequence FROM kubernetes_objects WHERE kind = 'pod' AND key = 'ns/p-2'`,
    );
    expect(p2).toEqual([{ uid: 'uid-again', stream_epoch: '1', stream_sequence: '2' }]);
  });

  it('fails only the message the statement cannot take; the others of its batch are recorded', async () => {
    const batch = new ClaimBatch(db.pool);
    // PostgreSQL's jsonb refuses \u0000: the whole statement fails on this one row
    const poisoned = batch.record({ change: pod('bad', 'uid-\u0000'), streamEpoch: 0, streamSequence: 6000, status: 'seen' });
    const good = Array.from({ length: 20 }, (_, i) =>
      batch.record({ change: pod(`ok-${i}`), streamEpoch: 0, streamSequence: 6001 + i, status: 'seen' }),
    );
    await expect(poisoned).rejects.toThrow(/\\u0000|Unicode/);
    await Promise.all(good);
    const keys = (await rows()).map((r) => r.key);
    expect(keys).toEqual(expect.arrayContaining(Array.from({ length: 20 }, (_, i) => `ns/ok-${i}`)));
    expect(keys).not.toContain('ns/bad');
  });
});
