import { connect, type NatsConnection } from 'nats';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { ACKED, DurableConsumer } from './durable-consumer';
import { natsServers } from './nats-servers';

const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/** Resolves with what `work` resolved with, or with 'still waiting' after `ms`: a hang is reported, not waited out. */
const within = <T>(ms: number, work: Promise<T>) =>
  Promise.race([work, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms).unref())]);

describe('DurableConsumer (real NATS)', () => {
  let bus: TestBus;
  let nc: NatsConnection;

  beforeEach(async () => {
    bus = await createTestBus('durable_consumer');
    nc = await connect({ servers: natsServers(NATS_URL) });
  });
  afterEach(async () => {
    if (!nc.isClosed()) await nc.close();
    await bus.close();
  });

  // The API's shared connection drains and closes while the consumer stops and a message's work
  // still runs. The client queues its next pull behind the delivered messages (a quarter of
  // PULL_AHEAD in); that pull then fails on the closed connection, which ends the message
  // iterator in an error before it reaches the stop that close() waits for.
  it('stops when its connection closes while a message is worked on', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const started: string[] = [];
    const consumer = new DurableConsumer(
      nc.jetstream(),
      await nc.jetstreamManager(),
      bus.names,
      { durable: bus.durable },
      (delivery) => ({
        key: delivery.subject,
        barrier: true,
        run: async () => {
          started.push(delivery.subject);
          await released;
          return ACKED;
        },
      }),
      () => undefined,
    );
    const subject = `${bus.names.subjectPrefix}.node.sync`;
    for (let i = 0; i < 8; i++) await bus.nc.jetstream().publish(subject, new TextEncoder().encode(String(i)));
    await consumer.start();
    for (const deadline = Date.now() + 10_000; started.length === 0 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(started).toEqual([subject]);

    const stopped = consumer.stop().then(() => 'stopped');
    await nc.drain();
    release();
    expect(await within(15_000, stopped)).toBe('stopped');
  });
});
