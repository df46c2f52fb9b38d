import { KubePublisher } from '@ipledger/messaging';
import { call, startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { eventually } from '../../../test/support/eventually';
import { startPrivateNats, type PrivateNats } from '../../../test/support/private-nats';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

/**
 * The `kubernetes` readiness check follows the consumer, not only the bus: a replica whose consumer
 * has not started (NATS away at boot, then its start failing) says so, with the reason, until the
 * consumer runs. It is not required: the replica stays Ready (REST needs only the database), and
 * the gauge carries the failure for an alert.
 */
describe('/readyz: the kubernetes check until the consumer has started', () => {
  let nats: PrivateNats;
  let bus: TestBus;
  let db: TestDatabase;
  let api: ApiProcess;

  const kubernetesCheck = async () => {
    const res = await call(api.base, 'GET', '/readyz?verbose');
    return { status: res.status, kubernetes: res.body.checks.kubernetes as { status: string; message?: string } };
  };
  const gauge = async () =>
    /ipledger_readiness_check\{check="kubernetes",required="false"\} (\d)/.exec(
      await fetch(`${api.base}/metrics`).then((r) => r.text()),
    )?.[1];

  beforeAll(async () => {
    nats = await startPrivateNats();
    bus = await createTestBus('kubernetes_readiness', nats.url);
    // the stream missing too: the consumer's start makes it
    await bus.jsm.streams.delete(bus.names.stream);
    await nats.stop();
    db = await createTestDatabase('kubernetes_readiness');
    // once NATS is back, the consumer's start still fails: its own table is away
    await db.pool.query('ALTER TABLE kubernetes_objects RENAME TO kubernetes_objects_away');
    // resolves once /readyz answers 200: the consumer is not needed for that
    api = await startApiProcess(db.url, { from: 'dist', env: bus.env });
  });
  afterAll(async () => {
    await api?.stop();
    await bus?.close();
    await db?.drop();
    await nats?.close();
  });

  it('reports the consumer not started, with why, until it runs; the replica stays ready', async () => {
    const waiting = {
      status: 200,
      kubernetes: {
        status: 'failed',
        required: false,
        message: 'the NATS bus is unreachable; the consumer has not started yet',
      },
    };
    // NATS away: the same answer for a while, readiness 200 throughout
    for (let i = 0; i < 6; i++) {
      expect(await kubernetesCheck()).toEqual(waiting);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect((await call(api.base, 'GET', '/readyz')).status).toBe(200);
    expect(await gauge()).toBe('0');

    // NATS back, the bus reachable, but the start fails: the failure is the reason
    await nats.start();
    const failing = await eventually(kubernetesCheck, (r) => r.kubernetes.message?.includes('kubernetes_objects') ?? false, 30_000);
    expect(failing.status).toBe(200);
    expect(failing.kubernetes.status).toBe('failed');
    expect(failing.kubernetes.message).toMatch(
      /^the consumer has not started: relation "kubernetes_objects" does not exist; trying again in \d+ ms$/,
    );
    expect(await gauge()).toBe('0');

    // the table back: the next try starts the consumer, and the check is ok
    await db.pool.query('ALTER TABLE kubernetes_objects_away RENAME TO kubernetes_objects');
    expect(await eventually(kubernetesCheck, (r) => r.kubernetes.status === 'ok', 30_000)).toEqual({
      status: 200,
      kubernetes: { status: 'ok', required: false },
    });
    expect(await gauge()).toBe('1');
    // and it consumes: the stream it made carries a Node to the API. The test's own connection may
    // still be reconnecting to the restarted NATS (a publish then times out): publish again until
    // stored, the message id making a repeat a duplicate
    await eventually(
      async () => {
        const publisher = new KubePublisher(bus.nc.jetstream(), bus.names);
        await publisher.change({
          kind: 'node',
          type: 'ADDED',
          object: { metadata: { name: 'ready-node', uid: 'u1', resourceVersion: '1', labels: { a: '1' } } },
        });
        return publisher.flush().then(
          () => true,
          () => false,
        );
      },
      (stored) => stored,
      30_000,
      'the Node published',
    );
    const node = await eventually(
      () => call(api.base, 'GET', '/v1/nodes/ready-node'),
      (r) => r.status === 200,
      15_000,
    );
    expect(node.body.labels).toEqual({ a: '1' });
  });
});
