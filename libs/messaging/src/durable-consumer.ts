import {
  AckPolicy,
  DeliverPolicy,
  nanos,
  ConsumerDebugEvents,
  ConsumerEvents,
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
  /**
   * the epoch of the stream that stored it (DurableConsumerOptions.streamEpoch): a stream made
   * again numbers its messages from 1 again, so only (epoch, sequence) orders messages across streams
   */
  streamEpoch: number;
  /** 1 on first delivery */
  deliveryCount: number;
  /** messages still to deliver to the consumer after this one, and when this one was stored (consumer deliveries only) */
  pending?: number;
  publishedAtMs?: number;
}

export type Outcome = { ack: true } | { retryAfterMs: number; error: Error } | { terminate: string };

/** One object's work in a message, and the key whose work must be applied in order. */
export interface Work {
  key: string;
  /** waits for every message before it (a sync marker must see the changes listed before it applied) */
  barrier?: boolean;
  /** its work joins a statement shared with other messages and holds no connection of its own: counted against `batchedConcurrency` */
  batched?: boolean;
  run(): Promise<Outcome>;
}

export type Terminated = { terminate: string };

/**
 * What a message becomes once read: one object's work, or several (a batch: each part runs in its
 * own key's order, and the message is acknowledged once every part is done, or redelivered whole
 * when one must be retried, its done parts being idempotent), or nothing ever to do.
 */
export type Prepared = Work | { parts: Array<Work | Terminated> } | Terminated;

export interface DurableConsumerOptions {
  durable: string;
  /** messages applied at once; messages of one key are always applied one after the other */
  concurrency?: number;
  ackWaitSeconds?: number;
  /**
   * Makes the stream when it is missing, and says whether it did: at the start, and again whenever
   * consuming broke off, as the stream may be what was lost (NATS restarted without its store, an
   * operator deleted it)
   */
  ensureStream?: () => Promise<boolean>;
  /** told when consuming broke off (the connection closed, the consumer's leader moved, the stream or durable lost) and is about to start again */
  onInterrupted?: (error: Error) => void;
  /** told when consuming runs again after it broke off, with what had to be made again */
  onResumed?: (remade: string[]) => void;
  /**
   * The epoch of the stream each consume binds to, which every delivery carries (0 without it): a
   * number that grows when the stream is made again, as the caller counts streams
   */
  streamEpoch?: (stream: BoundStream) => Promise<number>;
}

/** The stream a consume binds to: its creation time (StreamInfo `created`: one made again has another) and its last sequence then. */
export interface BoundStream {
  created: string;
  lastSequence: number;
}

/**
 * How long one pull waits on the server. The client expects a heartbeat every half of it, so a
 * pull lost with its server (a node of a cluster gone) is noticed and made again within seconds.
 */
const PULL_EXPIRES_MS = 5_000;

/** Batched work (see Work) in flight at once, besides `concurrency` others: about what one shared statement carries well. */
const BATCHED_CONCURRENCY = 1024;

/**
 * Messages pulled ahead of their work. A message's ack wait runs from its delivery, and is renewed
 * only once its work is scheduled, so what waits here must be done within it: 16 batches of Nodes
 * (2,048, several transactions each) are, and single-object messages (a watcher of the previous
 * release) are still taken as fast as the work in flight frees its room.
 */
const PULL_AHEAD = 16;

export const ACKED: Outcome = { ack: true };

/** A message as delivered by the consumer, or as read back from the stream (a parked one applied again). */
export function toDelivery(
  msg: { subject: string; data: Uint8Array; seq: number },
  headers: MsgHdrs | undefined,
  deliveryCount: number,
  streamEpoch: number,
): Delivery {
  return {
    subject: msg.subject,
    data: msg.data,
    messageId: headers?.get('Nats-Msg-Id') || undefined,
    streamSequence: msg.seq,
    streamEpoch,
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
  /** the epoch of the stream `messages` come from */
  private epoch = 0;
  private readonly chains = new Map<string, Promise<void>>();
  /** every message in flight, and those of each limit: the batched ones and the others */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly batchedInFlight = new Set<Promise<void>>();
  private readonly othersInFlight = new Set<Promise<void>>();
  private loop: Promise<void> | null = null;
  private stopped = false;
  private brokenOff: string | null = null;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: StreamNames,
    private readonly options: DurableConsumerOptions,
    private readonly prepare: (delivery: Delivery) => Prepared,
    private readonly settled: (delivery: Delivery, outcome: Outcome) => void,
  ) {}

  async start(): Promise<void> {
    await this.ensure();
    await this.consume();
    this.loop = this.run();
  }

  /** Null while messages are consumed (or awaited); else why consuming broke off, until it runs again. */
  get interruption(): string | null {
    return this.brokenOff;
  }

  /** The stream and the durable, made when missing; returns what was made. */
  private async ensure(): Promise<string[]> {
    const remade: string[] = [];
    if (await this.options.ensureStream?.()) remade.push(`stream ${this.names.stream}`);
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
        ack_wait: nanos(this.ackWaitSeconds * 1000),
        max_deliver: -1,
        filter_subject: `${this.names.subjectPrefix}.>`,
      });
      remade.push(`durable consumer ${durable}`);
    }
    return remade;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    // not awaited: close() resolves only when the iterator reaches the stop it queues, which one
    // that ended in an error (the connection closed meanwhile) never does; the loop ends either way
    void this.messages?.close().catch(() => undefined);
    await this.loop;
    await Promise.all(this.inFlight);
  }

  private async consume(): Promise<void> {
    const bound = await this.jsm.streams.info(this.names.stream);
    const epoch = (await this.options.streamEpoch?.({ created: bound.created, lastSequence: bound.state.last_seq })) ?? 0;
    const consumer = await this.js.consumers.get(this.names.stream, this.options.durable);
    // the stream or the durable lost ends the iterator (by default it would pull on in vain for ever), so run() makes them again
    const messages = await consumer.consume({ max_messages: PULL_AHEAD, expires: PULL_EXPIRES_MS, abort_on_missing_resource: true });
    // a stream made again between the two reads would have its messages taken for the older one's
    const still = await this.jsm.streams.info(this.names.stream).catch(() => null);
    if (still?.created !== bound.created) {
      void messages.close().catch(() => undefined);
      throw new Error(`stream ${this.names.stream} was made again while consuming started`);
    }
    this.messages = messages;
    this.epoch = epoch;
    void this.watch(messages).catch(() => undefined);
  }

  /**
   * Missed heartbeats mean the pulls get no answer (the client checks the durable and pulls again
   * meanwhile): consuming is broken until a pull is made again or a message comes.
   */
  private async watch(messages: ConsumerMessages): Promise<void> {
    for await (const status of await messages.status()) {
      if (status.type === ConsumerEvents.HeartbeatsMissed) this.brokenOff = `no heartbeat from NATS for ${String(status.data)} pull(s)`;
      else if (status.type === ConsumerDebugEvents.Next && this.messages === messages) this.brokenOff = null;
    }
  }

  /** Consumes until stopped: when the iterator breaks off, the stream and durable are made again if lost, and it is made again (unacknowledged messages come back). */
  private async run(): Promise<void> {
    for (let failures = 0; !this.stopped; ) {
      try {
        if (!this.messages) {
          const remade = await this.ensure();
          await this.consume();
          this.brokenOff = null;
          this.options.onResumed?.(remade);
        }
        for await (const msg of this.messages!) {
          failures = 0;
          this.brokenOff = null;
          await this.schedule(msg);
        }
        if (this.stopped) return;
        throw new Error('the consumer stopped delivering');
      } catch (err) {
        if (this.stopped) return;
        this.messages = null;
        const delay = Math.min(5_000, 250 * 2 ** failures++);
        this.brokenOff = `${(err as Error).message}; trying again in ${delay} ms`;
        this.options.onInterrupted?.(err as Error);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private get ackWaitSeconds(): number {
    return this.options.ackWaitSeconds ?? 30;
  }

  private get concurrency(): number {
    return this.options.concurrency ?? 16;
  }

  private async schedule(msg: JsMsg): Promise<void> {
    const delivery = {
      ...toDelivery(msg, msg.headers, msg.info.redeliveryCount, this.epoch),
      pending: msg.info.pending,
      publishedAtMs: Math.floor(msg.info.timestampNanos / 1e6),
    };
    const prepared = this.prepare(delivery);
    if ('terminate' in prepared) return this.settle(msg, delivery, prepared);
    if ('parts' in prepared) return this.scheduleParts(msg, delivery, prepared.parts);
    if (prepared.barrier) await Promise.all(this.inFlight);
    const { outcome } = await this.begin(prepared, delivery);
    const settled = this.track(outcome.then((o) => this.settle(msg, delivery, o)));
    if (prepared.barrier) await settled;
  }

  /**
   * Each part starts in its key's order, as its own message would; the message is settled once
   * all are done. Meanwhile its ack wait is renewed: a batch waits for the work of its keys.
   */
  private async scheduleParts(msg: JsMsg, delivery: Delivery, parts: Array<Work | Terminated>): Promise<void> {
    const beat = setInterval(() => msg.working(), (this.ackWaitSeconds * 1000) / 3);
    const outcomes: Array<Promise<Outcome>> = [];
    for (const part of parts) outcomes.push('terminate' in part ? Promise.resolve(part) : (await this.begin(part, delivery)).outcome);
    void this.track(
      Promise.all(outcomes).then((all) => {
        clearInterval(beat);
        for (const outcome of all) this.settled(delivery, outcome);
        const retry = all.find((o) => 'retryAfterMs' in o);
        if (retry) msg.nak(retry.retryAfterMs);
        else msg.ack();
      }),
    );
  }

  /** Starts the work after the work before it of its key, once its limit has room; resolves (without waiting for it) with its outcome. */
  private async begin(work: Work, delivery: Delivery): Promise<{ outcome: Promise<Outcome> }> {
    const [slots, limit] = work.batched ? [this.batchedInFlight, BATCHED_CONCURRENCY] : [this.othersInFlight, this.concurrency];
    while (slots.size >= limit) await Promise.race(slots);
    const previous = this.chains.get(work.key) ?? Promise.resolve();
    const outcome = previous
      .then(() => work.run())
      .catch((error: Error): Outcome => ({ retryAfterMs: retryDelayMs(delivery.deliveryCount), error }));
    const task: Promise<void> = outcome.then(() => {
      slots.delete(task);
      if (this.chains.get(work.key) === task) this.chains.delete(work.key);
    });
    this.chains.set(work.key, task);
    slots.add(task);
    void this.track(task);
    // wrapped: a promise returned by an async function would be awaited
    return { outcome };
  }

  private track(task: Promise<void>): Promise<void> {
    const tracked = task.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
    return tracked;
  }

  private settle(msg: JsMsg, delivery: Delivery, outcome: Outcome): void {
    if ('ack' in outcome) msg.ack();
    // no reason on the wire: NATS 2.9 ignores a "+TERM <reason>" it does not know, leaving the message pending
    else if ('terminate' in outcome) msg.term();
    else msg.nak(outcome.retryAfterMs);
    this.settled(delivery, outcome);
  }
}
