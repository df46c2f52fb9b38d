import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type BeforeApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import {
  ACKED,
  changeMessageId,
  DurableConsumer,
  ensureStream,
  trimObject,
  type Delivery,
  type Outcome,
  type Prepared,
  type Work,
} from '@ipledger/messaging';
import { streamEpoch, trimStoredObjects } from '@ipledger/projections';
import type { Pool } from 'pg';
import type { Config, KubernetesConsumerConfig } from '../config';
import { EventWriter } from '../infrastructure/event-writer';
import { CONFIG, PG_POOL } from '../infrastructure/tokens';
import { OwnTransaction } from '../infrastructure/unit-of-work';
import { Metrics } from '../metrics/metrics';
import { ClusterPresence } from '../clusters/cluster-presence';
import { ApplyContexts, messageMetadata, ownMetadata } from './apply-context';
import { BusConnection } from './bus-connection';
import { ConsumerMetrics } from './consumer-metrics';
import { HeldAddressTimer } from './held-address-timer';
import { MalformedMessage, parseKubeMessage, type ClusterChange } from './kube-message';
import { objectIdentity } from './kubernetes-objects';
import { ObjectReconciler } from './object-reconciler';
import { Parking } from './parking';
import { PeriodicWork } from './periodic-work';
import { PodAdoption } from './pod-adoption';
import type { Reconciled } from './reconciler';
import { SyncCleanup } from './sync-cleanup';
import { Unparking } from './unparking';

export const KUBERNETES_CONFIG = Symbol('KUBERNETES_CONFIG');

/** How often a replica looks for parked messages an operator asked to have applied again. */
const UNPARK_POLL_MS = 1000;
const START_RETRY_MIN_MS = 500;
const START_RETRY_MAX_MS = 30_000;

/** How often the pools are looked at for new ones (or new cidrs) that cover running pods' addresses to adopt: one small read. */
const POOL_ADOPTION_POLL_MS = 2000;

/**
 * Consumes what the watcher publishes: starts (again, backing off, until it runs), reads each
 * message into the work of its objects, hands each to its reconciler (ObjectReconciler, or
 * SyncCleanup for a sync marker) and turns the answer into the message's outcome (a park goes
 * to Parking). Messages of one object are applied in order, different objects concurrently; a
 * sync marker waits for every message before it. Timers: unparking, the held-address timer and
 * pool adoption.
 */
@Injectable()
export class KubernetesConsumer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('kubernetes');
  private consumer: DurableConsumer | null = null;
  private stopped = false;
  private startRetry?: NodeJS.Timeout;
  /** for /readyz: whether the consumer runs, and until it does, why its last start failed */
  private started = false;
  private startFailure: string | null = null;
  private readonly periodic = new PeriodicWork(this.logger);
  private readonly objects: ObjectReconciler;
  private readonly syncs: SyncCleanup;
  private readonly parking: Parking;
  private readonly held: HeldAddressTimer;
  private readonly measured: ConsumerMetrics;
  private readonly adoption: PodAdoption;

  constructor(
    @Inject(KUBERNETES_CONFIG) private readonly config: KubernetesConsumerConfig,
    @Inject(CONFIG) appConfig: Config,
    private readonly bus: BusConnection,
    commands: CommandBus,
    @Inject(PG_POOL) private readonly db: Pool,
    metrics: Metrics,
    writer: EventWriter,
    /** a watcher's first message of its cluster creates it, as a first REST write in it does */
    private readonly clusters: ClusterPresence,
  ) {
    const contexts = new ApplyContexts({ commands, db, defaultMatchLabel: appConfig.defaultMatchLabel, metrics });
    this.adoption = new PodAdoption(db, commands, this.logger);
    this.objects = new ObjectReconciler(db, writer, contexts, this.adoption, config.maxAttempts, this.logger, metrics);
    this.syncs = new SyncCleanup(db, commands, contexts, this.adoption, config, this.logger, metrics);
    this.parking = new Parking(db, this.logger, metrics);
    this.held = new HeldAddressTimer(contexts, config.unreachableNodeGraceSeconds, this.logger, metrics);
    this.measured = new ConsumerMetrics(config.names, this.logger, metrics);
  }

  /** Before a message of the cluster is applied: the cluster exists (created, no labels, if it did not). */
  private async inCluster(cluster: string, delivery: Delivery): Promise<void> {
    await this.clusters.writeIn(cluster, messageMetadata(delivery, cluster), () => Promise.resolve());
  }

  onApplicationBootstrap(): void {
    // not awaited: the API serves REST while NATS or the database is away
    void this.startUntilRunning();
  }

  /** A start that fails (the database or NATS away at boot) is tried again, backing off, until it runs or the API stops. */
  private async startUntilRunning(): Promise<void> {
    for (let delay = START_RETRY_MIN_MS; !this.stopped; delay = Math.min(delay * 2, START_RETRY_MAX_MS)) {
      try {
        await this.start();
        return;
      } catch (err) {
        this.startFailure = `${(err as Error).message}; trying again in ${delay} ms`;
        this.logger.error(`consumer not started: ${this.startFailure}`);
        await new Promise<void>((resolve) => (this.startRetry = setTimeout(resolve, delay).unref()));
      }
    }
  }

  private async start(): Promise<void> {
    const nc = await this.bus.ready;
    const jsm = await nc.jetstreamManager();
    if (this.stopped) return;
    const trimmed = await trimStoredObjects(this.db, trimObject);
    if (trimmed) this.logger.log(`trimmed ${trimmed} object(s) an older release stored whole`);
    this.consumer = new DurableConsumer(
      nc.jetstream(),
      jsm,
      this.config.names,
      {
        durable: this.config.durable,
        concurrency: this.config.concurrency,
        ensureStream: () => ensureStream(jsm, this.config.names, this.config.streamMaxAgeSeconds, this.config.streamReplicas),
        streamEpoch: (bound) => streamEpoch(this.db, this.config.names.stream, bound),
        onInterrupted: (err) => this.logger.warn(`consuming ${this.config.names.stream} broke off (${err.message}); starting again`),
        onResumed: (remade) =>
          this.logger.log(
            `consuming ${this.config.names.stream} again` +
              (remade.length ? `; made again: ${remade.join(', ')} (the watcher's relist fills the stream)` : ''),
          ),
      },
      (delivery) => this.prepare(delivery),
      (delivery, outcome) => this.measured.settled(delivery, outcome),
    );
    await this.consumer.start();
    this.started = true;
    const unparking = new Unparking(
      this.db,
      jsm,
      this.config.names.stream,
      this.config.maxAttempts,
      {
        prepare: (delivery) => this.prepare(delivery),
        settled: (delivery, outcome) => this.measured.settled(delivery, outcome),
      },
      this.logger,
    );
    this.periodic.every(UNPARK_POLL_MS, 'unpark requests not read', () => unparking.redeliverRequested());
    this.periodic.every(this.held.intervalMs, 'held addresses not checked', () => this.held.tick());
    this.periodic.every(POOL_ADOPTION_POLL_MS, 'pools not looked at for running pods to adopt', () =>
      // a timer's work: nothing redelivers it, so its commands retry their conflicts
      this.adoption.poolsChanged(ownMetadata(randomUUID()), new OwnTransaction({ retries: true })),
    );
    this.logger.log(`consuming ${this.config.names.stream} as ${this.config.durable}`);
  }

  /** Null while the consumer consumes; else why not: its first start under way or why the last one failed, or why consuming broke off since. */
  get notConsuming(): string | null {
    if (!this.started) return `the consumer has not started${this.startFailure ? `: ${this.startFailure}` : ' yet'}`;
    const interruption = this.consumer?.interruption;
    return interruption ? `consuming ${this.config.names.stream} broke off: ${interruption}` : null;
  }

  /** Before the shared connection drains (BusConnection, onApplicationShutdown): the acks of the work in flight still go out. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.startRetry);
    await this.periodic.stop();
    await this.consumer?.stop();
  }

  /** A message read into its work: each object's change keyed by the object, a sync marker a barrier keyed by its kind. */
  private prepare(delivery: Delivery): Prepared {
    this.measured.measureLag(delivery);
    let message;
    try {
      message = parseKubeMessage(this.config.names, delivery.subject, delivery.data);
    } catch (err) {
      if (err instanceof MalformedMessage) return { terminate: err.message };
      throw err;
    }
    if ('sync' in message) {
      const sync = message.sync;
      const key = `sync/${sync.cluster}/${sync.kind}`;
      return {
        key,
        barrier: true,
        run: async () => {
          await this.inCluster(sync.cluster, delivery);
          return outcomeOf(await this.syncs.reconcile(key, { change: sync, delivery }), (reason) => this.parking.setAside(sync, reason));
        },
      };
    }
    if ('changes' in message)
      return {
        parts: message.changes.map((change) =>
          change instanceof MalformedMessage
            ? { terminate: change.message }
            : // each change is audited under its own id, as if it had come alone
              this.prepareChange(change, { ...delivery, messageId: changeMessageId(change, change.cluster) }),
        ),
      };
    return this.prepareChange(message.change, delivery);
  }

  private prepareChange(change: ClusterChange, delivery: Delivery): Work {
    const key = objectIdentity(change);
    return {
      key,
      batched: ObjectReconciler.batched(change),
      run: async () => {
        await this.inCluster(change.cluster, delivery);
        return outcomeOf(await this.objects.reconcile(key, { change, delivery }), (reason) => this.parking.park(change, delivery, reason));
      },
    };
  }
}

/** A reconciler's answer as the message's outcome: a park is done first, then acknowledged. */
async function outcomeOf(reconciled: Reconciled, park: (reason: string) => void | Promise<void>): Promise<Outcome> {
  if ('park' in reconciled) {
    await park(reconciled.park);
    return ACKED;
  }
  return 'ack' in reconciled ? ACKED : { retryAfterMs: reconciled.requeueAfterMs, error: reconciled.error };
}
