import { randomUUID } from 'node:crypto';
import type { ClusterChange } from './kube-message';
import { createTestDatabase, type TestDatabase } from '../../../../test/support/test-database';
import { recordMisses, recordNodeReadiness, recordSyncChunk, streamEpoch, type StreamPosition } from '@ipledger/projections';
import { alreadyApplied, claimObjects, parkObject } from './kubernetes-objects';

const pod = (name: string, type: ClusterChange['type'] = 'MODIFIED'): ClusterChange => ({
  cluster: 'default',
  kind: 'pod',
  type,
  object: { metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '1' } },
});
const at = (streamEpoch: number, streamSequence: number): StreamPosition => ({ streamEpoch, streamSequence });

/**
 * The order of an object's messages across a stream made again (issue 32), against a real
 * PostgreSQL: (stream epoch, sequence), in every statement that compares them.
 */
describe('stream epochs', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('stream_epochs');
  });
  beforeEach(async () => {
    await db.pool.query('TRUNCATE kubernetes_streams, kubernetes_objects, kubernetes_node_readiness, kubernetes_syncs CASCADE');
  });
  afterAll(async () => {
    await db.drop();
  });

  const claim = async (name: string, position: StreamPosition) =>
    (await claimObjects(db.pool, [{ change: pod(name), ...position, status: 'seen' }]))[0];
  const stored = async (kind: string, key: string) =>
    (
      await db.pool.query<{ epoch: string; seq: string }>(
        'SELECT stream_epoch AS epoch, stream_sequence AS seq FROM kubernetes_objects WHERE kind = $1 AND key = $2',
        [kind, key],
      )
    ).rows[0];

  describe('numbering the streams', () => {
    it('gives the first stream bound epoch 0, the epoch rows written before epochs carry, and each stream made again the next', async () => {
      // a row of the stream in use at the upgrade: its sequence is within the stream's
      expect(await claim('old', at(0, 7))).toBe(true);
      expect(await streamEpoch(db.pool, 'S', { created: '2026-12-01T10:00:00.1Z', lastSequence: 10 })).toBe(0);
      expect(await streamEpoch(db.pool, 'S', { created: '2026-12-01T10:00:00.1Z', lastSequence: 12 })).toBe(0);
      // made again: a later created, lower sequences; the clocks are not trusted, only the order the consumer met them
      expect(await streamEpoch(db.pool, 'S', { created: '2026-12-01T09:00:00Z', lastSequence: 0 })).toBe(1);
      expect(await streamEpoch(db.pool, 'S', { created: '2026-12-01T10:00:00.1Z', lastSequence: 12 })).toBe(0);
      expect(await streamEpoch(db.pool, 'S', { created: '2026-12-02T00:00:00Z', lastSequence: 0 })).toBe(2);
    });

    it('takes the rows written before epochs for an older stream when their sequences run past the first stream bound (lost meanwhile)', async () => {
      expect(await claim('old', at(0, 5000))).toBe(true);
      expect(await streamEpoch(db.pool, 'S', { created: '2026-12-01T10:00:00Z', lastSequence: 40 })).toBe(1);
      // its messages are then newer than the rows', whatever their sequence
      expect(await claim('old', at(1, 3))).toBe(true);
    });

    it('numbers each stream once when replicas bind at once', async () => {
      const created = Array.from({ length: 6 }, (_, i) => `2026-12-01T10:00:0${i}Z`);
      const epochs = await Promise.all([...created, ...created].map((c) => streamEpoch(db.pool, 'S', { created: c, lastSequence: 0 })));
      expect(epochs.slice(0, 6)).toEqual(epochs.slice(6));
      expect([...epochs.slice(0, 6)].sort()).toEqual([0, 1, 2, 3, 4, 5]);
    });
  });

  describe('ordering an object’s messages', () => {
    it('records a message of a newer stream with a lower sequence, and still refuses an older one of the same stream or any of an older stream', async () => {
      expect(await claim('p', at(0, 500))).toBe(true);
      expect(await claim('p', at(0, 499))).toBe(false);
      expect(await claim('p', at(1, 3))).toBe(true);
      expect(await claim('p', at(0, 900))).toBe(false);
      expect(await claim('p', at(1, 2))).toBe(false);
      expect(await claim('p', at(1, 3))).toBe(true);
      expect(await stored('pod', 'ns/p')).toEqual({ epoch: '1', seq: '3' });
    });

    it('finds applied what is older than or the same as the last applied message, across streams', async () => {
      await claim('p', at(1, 3));
      const asked = [at(0, 900), at(1, 2), at(1, 3), at(1, 4), at(2, 1)];
      expect(
        await alreadyApplied(
          db.pool,
          asked.map((position) => ({ change: pod('p'), ...position })),
        ),
      ).toEqual([true, true, true, false, false]);
    });

    it('parks only a message newer than the last applied one', async () => {
      await claim('p', at(1, 3));
      await parkObject(db.pool, pod('p'), at(0, 999), 'parked after 3 attempt(s): old');
      expect(await stored('pod', 'ns/p')).toEqual({ epoch: '1', seq: '3' });
      await parkObject(db.pool, pod('p'), at(2, 1), 'parked after 3 attempt(s): new');
      const { rows } = await db.pool.query(
        `SELECT stream_epoch AS epoch, parked_sequence AS parked, status FROM kubernetes_objects WHERE key = 'ns/p'`,
      );
      expect(rows).toEqual([{ epoch: '2', parked: '1', status: 'parked after 3 attempt(s): new' }]);
    });

    it("keeps a node's readiness from the newest message, across streams", async () => {
      const ready = async () => (await db.pool.query(`SELECT ready FROM kubernetes_node_readiness WHERE node = 'n1'`)).rows[0]?.ready;
      await recordNodeReadiness(db.pool, 'default', 'n1', true, at(0, 500));
      await recordNodeReadiness(db.pool, 'default', 'n1', false, at(1, 2));
      expect(await ready()).toBe(false);
      await recordNodeReadiness(db.pool, 'default', 'n1', true, at(0, 900));
      expect(await ready()).toBe(false);
      await recordNodeReadiness(db.pool, 'default', 'n1', true, at(1, 1));
      expect(await ready()).toBe(false);
      await recordNodeReadiness(db.pool, 'default', 'n1', true, at(1, 3));
      expect(await ready()).toBe(true);
    });

    it("counts a sync's miss against objects whose last message came before its marker, an older stream's included; never against a listed one", async () => {
      await claim('gone', at(0, 900));
      await claim('listed', at(0, 800));
      await claim('newer', at(1, 50));
      await claim('earlier', at(1, 5));
      const syncId = randomUUID();
      const sync = await recordSyncChunk(db.pool, 'default', {
        kind: 'pod',
        syncId,
        resourceVersion: '1',
        listedAt: new Date().toISOString(),
        chunk: 0,
        chunks: 1,
        items: [{ key: 'ns/listed', uid: 'uid-listed' }],
      });
      await recordMisses(db.pool, sync!, null, at(1, 10), 0);
      const { rows } = await db.pool.query<{ key: string }>(
        `SELECT key FROM kubernetes_objects WHERE missing_syncs -> -1 ->> 'syncId' = $1 ORDER BY key`,
        [syncId],
      );
      expect(rows.map((r) => r.key)).toEqual(['ns/earlier', 'ns/gone']);
    });
  });
});
