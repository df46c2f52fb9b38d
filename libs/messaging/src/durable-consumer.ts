import {
  AckPolicy,
  DeliverPolicy,
  nanos,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type MsgHdrs,
} from 'nats';
import { backoffDelayMs } from '@ipledger/runtime';
import type { StreamNames } from './subjects';

export interface Delivery {
  subject: string;
  data: Uint8Array;
  /** the publisher's `Nats-Msg-Id` */
  messageId: string | undefined;
  streamSequence: number;
  /** 1 on first delivery */
  deliveryCount: number;
  /** messages still to deliver to the consumer after this one, and when this one was stored (consumer deliveries only) */
  pending?: number;
  publishedAtMs?: number;
}

export type Outcome = { ack: true } | { retryAfterMs: number; error: Error } | { terminate: string };

/** What a message becomes once read: the work, and the key whose messages must be applied in order. */
export type Prepared =
  | {
      key: string;
      /** waits for every message before it (a sync marker must see the changes listed before it applied) */
      barrier?: boolean;
      /** its work joins a statement shared with other messages and holds no connection of its own: counted against `batchedConcurrency` */
      batched?: boolean;
      run(): Promise<Outcome>;
    }
  | { terminate: string };

export interface DurableConsumerOptions {
  durable: string;
  /** messages applied at once; messages of one key are always applied one after the other */
  concurrency?: number;
  ackWaitSeconds?: number;
  /** told when consuming broke off (the connection closed, the consumer's leader moved) and is about to start again */
  onInterrupted?: (error: Error) => void;
}

/**
 * How long one pull waits on the server. The client expects a heartbeat every half of it, so a
 * pull lost with its server (a node of a cluster gone) is noticed and made again within seconds.
 */
const PULL_EXPIRES_MS = 5_000;

/** Batched messages (see Prepared) in flight at once, besides `concurrency` others: about what one shared statement carries well. */
const BATCHED_CONCURRENCY = 1024;

export const ACKED: Outcome = { ack: true };

/** A message as delivered by the consumer, or as read back from the stream (a parked one applied again). */
export function toDelivery(
  msg: { subject: string; data: Uint8Array; seq: number },
  headers: MsgHdrs | undefined,
  deliveryCount: number,
): Delivery {
  return {
    subject: msg.subject,
    data: msg.data,
    messageId: headers?.get('Nats-Msg-Id') || undefined,
    streamSequence: msg.seq,
    deliveryCount,
  };
}

/** Delayed redelivery grows with each attempt (up to 0.5 s, 1 s, 2 s ... 60 s), so a sick database is not hammered. */
export const retryDelayMs = (deliveryCount: number) => backoffDelayMs(deliveryCount, { baseMs: 500, maxMs: 60_000 });

/**
 * A durable pull consumer with explicit acks: a message is acknowledged only after its command
 * committed, retried later on a transient error, and terminated (never redelivered) when it can
 * never succeed.
 */
export class DurableConsumer {
  private messages: ConsumerMessages | null = null;
  private readonly chains = new Map<string, Promise<void>>();
  /** every message in flight, and those of each limit: the batched ones and the others */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly batchedInFlight = new Set<Promise<void>>();
  private readonly othersInFlight = new Set<Promise<void>>();
  private loop: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: StreamNames,
    private readonly options: DurableConsumerOptions,
    private readonly prepare: (delivery: Delivery) => Prepared,
    private readonly settled: (delivery: Delivery, outcome: Outcome) => void,
  ) {}

  async start(): Promise<void> {
    const { durable } = this.options;
    const exists = await this.jsm.consumers.info(this.names.stream, durable).then(
      () => true,
      () => false,
    );
    if (!exists) {
      await this.jsm.consumers.add(this.names.stream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: nanos((this.options.ackWaitSeconds ?? 30) * 1000),
        max_deliver: -1,
        filter_subject: `${this.names.subjectPrefix}.>`,
      });
    }
    await this.consume();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close().catch(() => undefined);
    await this.loop;
    await Promise.all(this.inFlight);
  }

  private async consume(): Promise<void> {
    const consumer = await this.js.consumers.get(this.names.stream, this.options.durable);
    this.messages = await consumer.consume({ max_messages: 2 * (this.concurrency + BATCHED_CONCURRENCY), expires: PULL_EXPIRES_MS });
  }

  /** Consumes until stopped: when the iterator breaks off, it is made again (unacknowledged messages come back). */
  private async run(): Promise<void> {
    for (let failures = 0; !this.stopped; ) {
      try {
        if (!this.messages) await this.consume();
        for await (const msg of this.messages!) {
          failures = 0;
          await this.schedule(msg);
        }
        if (this.stopped) return;
        throw new Error('the consumer stopped delivering');
      } catch (err) {
        if (this.stopped) return;
        this.messages = null;
        this.options.onInterrupted?.(err as Error);
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 250 * 2 ** failures++)));
      }
    }
  }

  private get concurrency(): number {
    return this.options.concurrency ?? 16;
  }

  private async schedule(msg: JsMsg): Promise<void> {
    const delivery = {
      ...toDelivery(msg, msg.headers, msg.info.redeliveryCount),
      pending: msg.info.pending,
      publishedAtMs: Math.floor(msg.info.timestampNanos / 1e6),
    };
    const prepared = this.prepare(delivery);
    if ('terminate' in prepared) return this.settle(msg, delivery, prepared);
    if (prepared.barrier) await Promise.all(this.inFlight);
    const [slots, limit] = prepared.batched ? [this.batchedInFlight, BATCHED_CONCURRENCY] : [this.othersInFlight, this.concurrency];
    while (slots.size >= limit) await Promise.race(slots);
    const previous = this.chains.get(prepared.key) ?? Promise.resolve();
    const task: Promise<void> = previous
      .then(() => prepared.run())
      .catch((error: Error) => ({ retryAfterMs: retryDelayMs(delivery.deliveryCount), error }))
      .then((outcome) => this.settle(msg, delivery, outcome))
      .finally(() => {
        this.inFlight.delete(task);
        slots.delete(task);
        if (this.chains.get(prepared.key) === task) this.chains.delete(prepared.key);
      });
    this.chains.set(prepared.key, task);
    this.inFlight.add(task);
    slots.add(task);
    if (prepared.barrier) await task;
  }

  private settle(msg: JsMsg, delivery: Delivery, outcome: Outcome): void {
    if ('ack' in outcome) msg.ack();
    // no reason on the wire: NATS 2.9 ignores a "+TERM <reason>" it does not know, leaving the message pending
    else if ('terminate' in outcome) msg.term();
    else msg.nak(outcome.retryAfterMs);
    this.settled(delivery, outcome);
  }
}
