import { connect, type NatsConnection } from 'nats';
import { eventually } from '../../../test/support/eventually';
import { createTestBus, type TestBus } from '../../../test/support/test-bus';
import { ACKED, DurableConsumer, type BoundStream } from './durable-consumer';
import { ensureStream } from './ensure-stream';
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

  // a stream made again numbers from 1 again: only the epoch tells its messages from the lost one's
  it('gives every delivery the epoch of the stream it came from, and binds anew to a stream made again', async () => {
    const jsm = await nc.jetstreamManager();
    const bound: BoundStream[] = [];
    const seen: Array<[epoch: number, sequence: number]> = [];
    const consumer = new DurableConsumer(
      nc.jetstream(),
      jsm,
      bus.names,
      {
        durable: bus.durable,
        ensureStream: () => ensureStream(jsm, bus.names, 3600),
        streamEpoch: (stream) => Promise.resolve(bound.push(stream) * 10),
      },
      (delivery) => ({
        key: 'one',
        run: () => {
          seen.push([delivery.streamEpoch, delivery.streamSequence]);
          return Promise.resolve(ACKED);
        },
      }),
      () => undefined,
    );
    const subject = `${bus.names.subjectPrefix}.node.sync`;
    for (let i = 0; i < 3; i++) await bus.nc.jetstream().publish(subject, new TextEncoder().encode(String(i)));
    await consumer.start();
    try {
      await eventually(
        () => seen.length,
        (n) => n === 3,
      );
      await jsm.streams.delete(bus.names.stream);
      await eventually(
        () => bound.length,
        (n) => n === 2,
        20_000,
      );
      await bus.nc.jetstream().publish(subject, new TextEncoder().encode('again'));
      await eventually(
        () => seen.length,
        (n) => n === 4,
      );
    } finally {
      await consumer.stop();
    }
    expect(seen).toEqual([
      [10, 1],
      [10, 2],
      [10, 3],
      [20, 1],
    ]);
    expect(bound).toEqual([
      { created: expect.any(String), lastSequence: 3 },
      { created: expect.any(String), lastSequence: 0 },
    ]);
    expect(bound[1].created).not.toBe(bound[0].created);
  });
});
