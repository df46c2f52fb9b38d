import { KubePublisher } from '@ipledger/messaging';
import { call, startApiProcess, type ApiProcess } from '../../../test/support/api-process';
import { eventually } from '../../../test/support/eventually';
import { startPrivateNats, type PrivateNats } from '../../../test/support/private-nats';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database';

/**
 * The `kubernetes` readiness check follows the consumer, not only the bus: a replica whose consumer
 * has not started (NATS away at boot, then its start failing), or whose consuming broke off (its
 * stream or durable consumer lost under it), says so, with the reason, until the consumer runs
 * again. It is not required: the replica stays Ready (REST needs only the database), and the gauge
 * carries the failure for an alert.
 */
describe('/readyz: the kubernetes check follows the consumer', () => {
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
  /** a Node as the watcher publishes it, and the API's answer for it once applied */
  const publishNode = async (name: string) => {
    await bus.publisher.change({
      kind: 'node',
      type: 'ADDED',
      object: { metadata: { name, uid: `uid-${name}`, resourceVersion: '1', labels: { a: '1' } } },
    });
    await bus.publisher.flush();
  };
  const appliedNode = (name: string) =>
    eventually(
      () => call(api.base, 'GET', `/v1/nodes/${name}`),
      (r) => r.status === 200,
      15_000,
    );

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
    expect((await appliedNode('ready-node')).body.labels).toEqual({ a: '1' });
  });

  // runs on from the test above: the API consumes its stream
  it('notices its durable consumer or its stream lost under it, makes them again and consumes on; the check says so meanwhile', async () => {
    const ok = { status: 200, kubernetes: { status: 'ok', required: false } };
    // an operator deletes the durable consumer: made again, and what is published next is applied
    await bus.jsm.consumers.delete(bus.names.stream, bus.durable);
    await eventually(
      () => bus.jsm.consumers.info(bus.names.stream, bus.durable).catch(() => null),
      (info) => info !== null,
      20_000,
    );
    await publishNode('after-consumer-loss');
    await appliedNode('after-consumer-loss');
    expect(await kubernetesCheck()).toEqual(ok);

    // the stream lost (NATS restarted without its store), and making it again fails for a while:
    // another stream holds its subjects
    await bus.jsm.streams.delete(bus.names.stream);
    const blocker = `${bus.names.stream}_BLOCKER`;
    await bus.jsm.streams.add({ name: blocker, subjects: [`${bus.names.subjectPrefix}.>`] });
    // first the pull's own error (the durable went with the stream), then why making them again fails
    const broken = await eventually(kubernetesCheck, (r) => r.kubernetes.message?.includes('overlap') ?? false, 20_000);
    expect(broken.status).toBe(200);
    expect(broken.kubernetes.status).toBe('failed');
    expect(broken.kubernetes.message).toMatch(/^consuming .* broke off: .*subjects overlap.*; trying again in \d+ ms$/);
    expect(await gauge()).toBe('0');
    // still failed a while later: the consumer does not pretend
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await kubernetesCheck()).kubernetes.status).toBe('failed');

    // the subjects free again: the API makes its stream and durable consumer and consumes on
    await bus.jsm.streams.delete(blocker);
    expect(await eventually(kubernetesCheck, (r) => r.kubernetes.status === 'ok', 30_000)).toEqual(ok);
    expect(await gauge()).toBe('1');
    await publishNode('after-stream-loss');
    expect((await appliedNode('after-stream-loss')).body.labels).toEqual({ a: '1' });
  });
});
