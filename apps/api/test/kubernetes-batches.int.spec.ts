import { randomUUID } from 'node:crypto';
import { AckPolicy, DeliverPolicy, headers, nanos } from 'nats';
import { Client } from 'pg';
import { changeSubject, type ChangeType, type KubeKind, type KubeObject } from '@ipledger/messaging';
import { startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { eventually } from '../../../test/support/eventually';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

/** Short, so that a message left unacknowledged by a killed API comes back within the test. */
const ACK_WAIT_SECONDS = 3;

/**
 * The watcher's batches (several objects' changes in one message) through the built API as its
 * own process: each change is applied, each object's changes in order, and the message is
 * acknowledged only once every change in it committed.
 */
describe('Kubernetes consumer: batches of changes', () => {
  let db: TestDatabase;
  let bus: TestBus;
  let api: ApiProcess | null = null;
  let rv = 1000;

  const object = (name: string, extra: { namespace?: string; labels?: Record<string, string> } = {}): KubeObject => ({
    metadata: { name, namespace: extra.namespace, uid: `uid-${name}`, resourceVersion: String(++rv), labels: extra.labels },
  });
  const change = (kind: KubeKind, type: ChangeType, obj: KubeObject) => bus.publisher.change({ kind, type, object: obj });
  const streamMessages = async () => (await bus.jsm.streams.info(bus.names.stream)).state.messages;
  const nodeNames = async (prefix: string) =>
    (await db.pool.query<{ name: string }>(`SELECT name FROM nodes WHERE name LIKE $1 ORDER BY name`, [`${prefix}%`])).rows.map(
      (r) => r.name,
    );
  const startApi = async () => (api = await startApiProcess(db.url, { from: 'dist', env: bus.env }));

  beforeAll(async () => {
    db = await createTestDatabase('kubernetes_batches');
    bus = await createTestBus('batches');
    // made before the API makes it: the API keeps an existing consumer's settings
    await bus.jsm.consumers.add(bus.names.stream, {
      durable_name: bus.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: nanos(ACK_WAIT_SECONDS * 1000),
      max_deliver: -1,
      filter_subject: `${bus.names.subjectPrefix}.>`,
    });
  });
  afterAll(async () => {
    await api?.stop();
    await bus.close();
    await db.drop();
  });

  it('acknowledges a batch only after its changes committed: an API killed before the commit leaves it to be delivered again', async () => {
    await startApi();
    // writes to the nodes read model wait behind this transaction, so no node change of the batch can commit
    const locker = new Client({ connectionString: db.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE nodes IN EXCLUSIVE MODE');
    try {
      const before = await streamMessages();
      for (let i = 0; i < 20; i++) await change('node', 'ADDED', object(`held-${String(i).padStart(2, '0')}`, { labels: { rack: 'a' } }));
      await bus.publisher.flush();
      expect(await streamMessages()).toBe(before + 1);
      await eventually(
        async () =>
          Number(
            (
              await db.pool.query(
                `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
              )
            ).rows[0].n,
          ),
        (n) => n >= 1,
        20_000,
        'a node change of the batch to wait for the lock',
      );
      await api!.kill();
    } finally {
      await locker.query('COMMIT');
      await locker.end();
    }
    expect(await nodeNames('held-')).toEqual([]);
    const info = await bus.jsm.consumers.info(bus.names.stream, bus.durable);
    expect(info.num_ack_pending + info.num_pending).toBe(1);

    await startApi();
    await bus.idle(60_000);
    expect(await nodeNames('held-')).toEqual(Array.from({ length: 20 }, (_, i) => `held-${String(i).padStart(2, '0')}`));
  });

  it('applies every change of a batch, and an object changed twice in order (two messages)', async () => {
    api ??= await startApi();
    const before = await streamMessages();
    for (let i = 0; i < 50; i++) {
      await change('node', 'ADDED', object(`b-${i}`, { labels: { v: '1' } }));
      await change('pod', 'ADDED', object(`p-${i}`, { namespace: 'apps' }));
    }
    // in the same turn: b-0 again closes the first node batch, b-1 goes with it in the second
    await change('node', 'MODIFIED', object('b-0', { labels: { v: '2' } }));
    await change('node', 'DELETED', object('b-1'));
    await bus.publisher.flush();
    expect(await streamMessages()).toBe(before + 3);
    await bus.idle(60_000);

    const labels = async (name: string) => (await db.pool.query(`SELECT labels FROM nodes WHERE name = $1`, [name])).rows[0]?.labels;
    expect(await labels('b-0')).toEqual({ v: '2' });
    expect(await labels('b-1')).toBeUndefined();
    expect((await nodeNames('b-')).length).toBe(49);
    const pods = await db.pool.query(`SELECT count(*) AS n FROM kubernetes_objects WHERE kind = 'pod' AND status = 'seen'`);
    expect(Number(pods.rows[0].n)).toBe(50);
  });

  it('still applies a single-object message, as a watcher of the previous release publishes it', async () => {
    api ??= await startApi();
    const h = headers();
    h.set('Nats-Msg-Id', randomUUID());
    const single = { kind: 'node', type: 'ADDED', object: object('old-1', { labels: { from: 'old-watcher' } }) };
    await bus.nc.jetstream().publish(changeSubject(bus.names, 'node'), Buffer.from(JSON.stringify(single)), { headers: h });
    await bus.idle(30_000);
    expect((await db.pool.query(`SELECT labels FROM nodes WHERE name = 'old-1'`)).rows[0]?.labels).toEqual({ from: 'old-watcher' });
  });
});
