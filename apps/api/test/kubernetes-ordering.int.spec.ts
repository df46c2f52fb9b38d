import type { INestApplication } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { changeSubject, type ChangeType, type Delivery, type KubeObject, type Outcome, type Prepared } from '@ipledger/messaging';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';
import { eventually } from '../../../test/support/eventually';
import { loadConfig } from '../src/config';
import { createApp } from '../src/create-app';
import { KubernetesConsumer } from '../src/kubernetes/kubernetes-consumer';

/**
 * Two API replicas, each handed one message of the same IPPool: the older one (ADDED) is slowed
 * down inside its transaction, the newer one (DELETED) comes meanwhile. The messages are given to
 * each replica's consumer directly, so which replica gets which is not left to chance.
 */
describe('two consumers and one object', () => {
  let db: TestDatabase;
  let bus: TestBus;
  const apps: INestApplication[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('kubernetes_ordering');
    bus = await createTestBus('ordering');
    for (const replica of ['a', 'b']) {
      // no statement_timeout: the older message's transaction waits behind the test's lock for as long as
      // a loaded machine takes to deliver the newer one (cancelled, it would leave the newer one first)
      const env = { ...bus.env, DATABASE_URL: db.url, IPAM_NATS_DURABLE: `${bus.durable}_${replica}`, IPAM_STATEMENT_TIMEOUT_MS: '0' };
      const app = await createApp(loadConfig(env), { logger: false });
      await app.init();
      apps.push(app);
    }
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await bus.close();
    await db.drop();
  });

  /** As JetStream would: a message that lost a race (a retry outcome) is delivered again until acknowledged. */
  const deliver = async (replica: number, type: ChangeType, object: KubeObject, streamSequence: number): Promise<Outcome> => {
    for (let deliveryCount = 1; ; deliveryCount++) {
      const delivery: Delivery = {
        subject: changeSubject(bus.names, 'ippool'),
        data: Buffer.from(JSON.stringify({ kind: 'ippool', type, object })),
        messageId: `${object.metadata.uid}:${object.metadata.resourceVersion}`,
        streamSequence,
        streamEpoch: 0,
        deliveryCount,
      };
      const prepared = apps[replica].get<unknown, { prepare(d: Delivery): Prepared }>(KubernetesConsumer).prepare(delivery);
      if ('terminate' in prepared) throw new Error(prepared.terminate);
      if ('parts' in prepared) throw new Error('a single change was read as a batch');
      const outcome = await prepared.run();
      if (!('retryAfterMs' in outcome)) return outcome;
    }
  };
  const waiting = async () =>
    Number(
      (await db.pool.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`))
        .rows[0].n,
    );

  it('never lets an older message that committed late undo a newer one applied by the other replica', async () => {
    const uid = randomUUID();
    const added: KubeObject = { metadata: { name: 'late', uid, resourceVersion: '10' }, spec: { cidr: '10.70.0.0/24' } };
    const deleted: KubeObject = { metadata: { name: 'late', uid, resourceVersion: '11' } };

    // writes to the pools read model wait behind this transaction; reads do not
    const locker = new Client({ connectionString: db.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE pools IN EXCLUSIVE MODE');
    const first = deliver(0, 'ADDED', added, 10);
    await eventually(waiting, (n) => n >= 1, 20_000);
    let secondDone = false;
    const second = deliver(1, 'DELETED', deleted, 11).finally(() => (secondDone = true));
    // the newer message either finishes at once (it saw no pool) or waits for the older one's transaction
    await eventually(
      async () => secondDone || (await waiting()) >= 2,
      (ready) => ready,
      20_000,
    );
    await locker.query('COMMIT');
    await locker.end();
    await Promise.all([first, second]);

    const pools = await db.pool.query(`SELECT name FROM pools WHERE name = 'late'`);
    expect(pools.rows).toEqual([]);
    const object = await db.pool.query(`SELECT stream_sequence, deleted FROM kubernetes_objects WHERE kind = 'ippool' AND key = 'late'`);
    expect(object.rows).toEqual([{ stream_sequence: '11', deleted: true }]);
    const events = await db.pool.query(`SELECT type FROM events WHERE stream_id = 'pool-late' ORDER BY version`);
    expect(events.rows.map((r) => r.type)).toEqual(['PoolCreated', 'PoolDeleted']);
  });
});
