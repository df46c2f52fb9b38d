import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type BeforeApplicationShutdown } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { DeletePoolCommand, DomainError, type CommandMetadata } from '@ipledger/domain';
import {
  ACKED,
  changeMessageId,
  DurableConsumer,
  ensureStream,
  objectKey,
  parseSubject,
  toDelivery,
  type Delivery,
  type KubeKind,
  type KubeObject,
  type ObjectChange,
  type Outcome,
  type Prepared,
  type SyncMarker,
  type Work,
} from '@ipledger/messaging';
import type { JetStreamManager, StoredMsg } from 'nats';
import { findPoolsByName, type PoolView } from '@ipledger/projections';
import type { Pool } from 'pg';
import type { Config, KubernetesConsumerConfig } from '../config';
import { isDatabaseUnavailable } from '../infrastructure/database-unavailable';
import { EventWriter } from '../infrastructure/event-writer';
import { ReadBatcher } from '../infrastructure/read-batcher';
import { conflictDelayMs, conflictsGoUp, isConflict } from '../infrastructure/retry-on-conflict';
import { CONFIG, PG_POOL } from '../infrastructure/tokens';
import { runFenced, type WriteFence } from '../infrastructure/write-fence';
import { Metrics } from '../metrics/metrics';
import { deleteOnce, type ApplyContext } from './apply-context';
import { BusConnection } from './bus-connection';
import { applyIpPool } from './ippool.applier';
import { MalformedMessage, parseKubeMessage } from './kube-message';
import {
  claimObject,
  alreadyApplied,
  parkObject,
  refusedDeletes,
  requestUnpark,
  setStatus,
  StaleMessage,
  statefulSetsWithoutRange,
  takeUnparkRequests,
  trimStoredObjects,
  type ParkedMessage,
} from './kubernetes-objects';
import { releaseForUnreachableNodes } from './held-for-node';
import { collectLeaks } from './leak-collector';
import { applyNamespace } from './namespace.applier';
import { applyNode } from './node.applier';
import { applyPod, onlyRecorded } from './pod.applier';
import { PodAdoption } from './pod-adoption';
import { ClaimBatch } from './claim-batch';
import { CommitBatch, committedInBatches } from './commit-batch';
import { applyStatefulSet } from './statefulset.applier';
import { streamEpoch, type StreamPosition } from './stream-epochs';
import { applyDeployment, applyReplicaSet } from './workload.applier';
import { markSyncDone, previousSync, recordMisses, recordSyncChunk, type CompleteSync, type VanishedObject } from './sync-markers';

export const KUBERNETES_CONFIG = Symbol('KUBERNETES_CONFIG');

const APPLIERS: Record<KubeKind, (ctx: ApplyContext, change: ObjectChange) => Promise<string>> = {
  node: applyNode,
  ippool: applyIpPool,
  statefulset: applyStatefulSet,
  pod: applyPod,
  namespace: applyNamespace,
  deployment: applyDeployment,
  replicaset: applyReplicaSet,
};

/** How often a replica looks for parked messages an operator asked to have applied again. */
const UNPARK_POLL_MS = 1000;
const START_RETRY_MIN_MS = 500;
const START_RETRY_MAX_MS = 30_000;

/** How often held addresses are checked against their node's grace: a quarter of it, within these bounds. */
const HELD_POLL_MIN_MS = 500;
const HELD_POLL_MAX_MS = 15_000;

/** How often the pools are looked at for new ones (or new cidrs) that cover running pods' addresses to adopt: one small read. */
const POOL_ADOPTION_POLL_MS = 2000;

/**
 * Applies what the watcher publishes through the same commands as REST. Messages of one object
 * are applied in order, different objects concurrently; a sync marker waits for every message
 * before it. A refusal by the domain is final (recorded as the object's status, acknowledged); a
 * lost race (CONCURRENCY_CONFLICT) goes back for redelivery at once, the one level that retries it
 * (no command inside retries on its own); any other error is retried later, with a growing delay.
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
  private jsm: JetStreamManager | null = null;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly claims: ClaimBatch;
  private readonly batches: CommitBatch;
  /** the reads every Node or IPPool message makes, one query for those that meet */
  private readonly applied: ReadBatcher<{ change: ObjectChange } & StreamPosition, boolean>;
  private readonly pools: ReadBatcher<string, PoolView | null>;
  private readonly adoption: PodAdoption;

  constructor(
    @Inject(KUBERNETES_CONFIG) private readonly config: KubernetesConsumerConfig,
    @Inject(CONFIG) private readonly appConfig: Config,
    private readonly bus: BusConnection,
    private readonly commands: CommandBus,
    @Inject(PG_POOL) private readonly db: Pool,
    private readonly metrics: Metrics,
    private readonly writer: EventWriter,
  ) {
    this.claims = new ClaimBatch(db);
    this.batches = new CommitBatch(writer);
    this.applied = new ReadBatcher((messages) => alreadyApplied(db, messages));
    this.adoption = new PodAdoption(db, commands, this.logger);
    this.pools = new ReadBatcher(async (names) => {
      const found = new Map((await findPoolsByName(db, names)).map((pool) => [pool.name, pool]));
      return names.map((name) => found.get(name) ?? null);
    });
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
    const trimmed = await trimStoredObjects(this.db);
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
      (delivery, outcome) => this.settled(delivery, outcome),
    );
    await this.consumer.start();
    this.jsm = jsm;
    this.started = true;
    this.every(UNPARK_POLL_MS, 'unpark requests not read', () => this.redeliverUnparked());
    const grace = this.config.unreachableNodeGraceSeconds;
    this.every(Math.min(HELD_POLL_MAX_MS, Math.max(HELD_POLL_MIN_MS, (grace * 1000) / 4)), 'held addresses not checked', () =>
      this.releaseHeldForUnreachableNodes(),
    );
    this.every(POOL_ADOPTION_POLL_MS, 'pools not looked at for running pods to adopt', () =>
      this.adoption.poolsChanged(ownMetadata(randomUUID())),
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
    this.timers.forEach((timer) => clearInterval(timer));
    await Promise.all(this.running);
    await this.consumer?.stop();
  }

  /** Periodic work, one run at a time; a failure is logged and the next tick tries again. */
  private every(ms: number, failure: string, work: () => Promise<void>): void {
    let run: Promise<void> | null = null;
    this.timers.push(
      setInterval(() => {
        if (run) return;
        run = work()
          .catch((err: Error) => this.logger.warn(`${failure}: ${err.message}`))
          .finally(() => {
            this.running.delete(run!);
            run = null;
          });
        this.running.add(run);
      }, ms),
    );
  }

  /** Addresses held for a node that stayed not Ready past IPAM_UNREACHABLE_NODE_GRACE_SECONDS are released (every replica looks; releases are idempotent). */
  private async releaseHeldForUnreachableNodes(): Promise<void> {
    const released = await releaseForUnreachableNodes(this.context(ownMetadata(randomUUID())), this.config.unreachableNodeGraceSeconds);
    this.metrics.leakReleases.inc({ reason: 'node-unreachable' }, released.length);
    for (const handle of released) {
      this.logger.warn(`released handle ${handle}: held for a node not Ready for ${this.config.unreachableNodeGraceSeconds} s`);
    }
  }

  private prepare(delivery: Delivery): Prepared {
    this.measureLag(delivery);
    let message;
    try {
      message = parseKubeMessage(this.config.names, delivery.subject, delivery.data);
    } catch (err) {
      if (err instanceof MalformedMessage) return { terminate: err.message };
      throw err;
    }
    if ('sync' in message) {
      const sync = message.sync;
      return {
        key: `sync/${sync.kind}`,
        barrier: true,
        run: () =>
          conflictsGoUp(() => this.applySync(sync, delivery)).catch(
            (err: Error) => conflictRedelivery(err, delivery) ?? this.parkSync(sync, delivery, err),
          ),
      };
    }
    if ('changes' in message)
      return {
        parts: message.changes.map((change) =>
          change instanceof MalformedMessage
            ? { terminate: change.message }
            : // each change is audited under its own id, as if it had come alone
              this.prepareChange(change, { ...delivery, messageId: changeMessageId(change) }),
        ),
      };
    return this.prepareChange(message.change, delivery);
  }

  private prepareChange(change: ObjectChange, delivery: Delivery): Work {
    return {
      key: `${change.kind}/${objectKey(change.object)}`,
      batched: onlyRecorded(change) || committedInBatches(change),
      run: () => conflictsGoUp(() => this.applyChange(change, delivery)),
    };
  }

  private metadata(delivery: Delivery, correlationId: string): CommandMetadata {
    return {
      actor: 'watcher',
      source: 'kubernetes',
      correlationId,
      causationId: delivery.messageId,
      messageId: delivery.messageId,
      streamSequence: delivery.streamSequence,
      streamEpoch: delivery.streamEpoch,
    };
  }

  private context(metadata: CommandMetadata): ApplyContext {
    return {
      commands: this.commands,
      db: this.db,
      metadata,
      defaultMatchLabel: this.appConfig.defaultMatchLabel,
      metrics: this.metrics,
      findPool: (name) => this.pools.read(name),
    };
  }

  private async applyChange(change: ObjectChange, delivery: Delivery): Promise<Outcome> {
    try {
      if (onlyRecorded(change)) await this.recordLive(change, delivery);
      // a shortcut only (a redelivered old message runs no command): the fence below is the guarantee
      else if (await this.applied.read({ change, ...positionOf(delivery) })) return ACKED;
      else if (committedInBatches(change)) await this.applyInBatch(change, delivery);
      else await this.applyFenced(change, delivery);
    } catch (err) {
      if (err instanceof StaleMessage) return ACKED;
      const again = conflictRedelivery(err, delivery);
      if (again) return again;
      if (!this.parks(err, delivery)) throw err;
      await this.park(change, delivery, err as Error);
    }
    return ACKED;
  }

  /** A message that only records its object (see onlyRecorded): decided alone (a refusal is its status), recorded with the others that meet. */
  private async recordLive(change: ObjectChange, delivery: Delivery): Promise<void> {
    const ctx = this.context(this.metadata(delivery, change.object.metadata.uid));
    const status = await this.refusalAsStatus(change.kind, `${change.type} ${objectKey(change.object)}`, () =>
      APPLIERS[change.kind](ctx, change),
    );
    await this.claims.record({ change, ...positionOf(delivery), status });
    // acknowledged once adopted: a failure here delivers the message again, and its adoption is tried again
    if (change.kind === 'pod') await this.adoption.podRecorded(change.object, ctx.metadata);
  }

  /**
   * Applies the message under a fence: every append of its commands first claims the object's row
   * (order check and record in the append's transaction), and the final status is confirmed only
   * while every stream the commands read is still as they read it. A no-op decided on a state that
   * an older message's late transaction changed meanwhile is thus decided again, never recorded.
   */
  private async applyFenced(change: ObjectChange, delivery: Delivery): Promise<void> {
    const ctx = this.context(this.metadata(delivery, change.object.metadata.uid));
    const fence: WriteFence = {
      reads: new Map(),
      check: (client) => claimObject(client, change, positionOf(delivery), 'applying'),
    };
    const status = await runFenced(fence, () =>
      this.refusalAsStatus(change.kind, `${change.type} ${objectKey(change.object)}`, () => APPLIERS[change.kind](ctx, change)),
    );
    await this.writer.confirm({ ...fence, check: (client) => claimObject(client, change, positionOf(delivery), status) });
  }

  /**
   * applyFenced with the commit shared: decided alone, its appends deferred, then committed with
   * the messages that meet (see CommitBatch), which check its object's order and every stream it
   * read as the fence does; applied alone after all when the batch cannot commit whole.
   */
  private async applyInBatch(change: ObjectChange, delivery: Delivery): Promise<void> {
    const ctx = this.context(this.metadata(delivery, change.object.metadata.uid));
    // notes what the decision read; nothing is appended under it (the appends are deferred)
    const fence: WriteFence = { reads: new Map(), check: () => Promise.reject(new Error('a deferred append was written')) };
    const { result: status, changes } = await runFenced(fence, () =>
      this.writer.deferAppends(() =>
        this.refusalAsStatus(change.kind, `${change.type} ${objectKey(change.object)}`, () => APPLIERS[change.kind](ctx, change)),
      ),
    );
    await this.batches.add({
      claim: { change, ...positionOf(delivery), status },
      changes,
      reads: fence.reads,
      alone: () => this.applyFenced(change, delivery),
    });
  }

  /**
   * A message that failed for a reason other than a refusal is retried with a growing delay, and
   * parked after IPAM_KUBERNETES_MAX_ATTEMPTS deliveries; a database that is away or a lost race
   * is no fault of the message and never counts.
   */
  private parks(err: unknown, delivery: Delivery): boolean {
    return delivery.deliveryCount >= this.config.maxAttempts && !isDatabaseUnavailable(err) && !isConflict(err);
  }

  /** A sync marker has no object to park: it is set aside (logged, counted), and the next sync does its work. */
  private parkSync(sync: SyncMarker, delivery: Delivery, err: Error): Outcome {
    if (!this.parks(err, delivery)) throw err;
    this.metrics.kubernetesMessages.inc({ kind: sync.kind, outcome: 'parked' });
    this.logger.error(
      `${sync.kind} sync ${sync.syncId} set aside after ${delivery.deliveryCount} attempt(s): ${err.message}; the next sync does its work`,
    );
    return ACKED;
  }

  private async park(change: ObjectChange, delivery: Delivery, err: Error): Promise<void> {
    const status = `parked after ${delivery.deliveryCount} attempt(s): ${err.message}`;
    await parkObject(this.db, change, positionOf(delivery), status);
    this.metrics.kubernetesMessages.inc({ kind: change.kind, outcome: 'parked' });
    this.logger.error(
      `${change.kind} ${objectKey(change.object)} ${status} (stream sequence ${delivery.streamSequence}, epoch ${delivery.streamEpoch}); ` +
        'applied again at its next change, or on `npm run cli -- unpark`',
    );
  }

  /** Parked messages an operator asked for (`npm run cli -- unpark`) are read back from the stream and applied once more. */
  private async redeliverUnparked(): Promise<void> {
    for (const request of await takeUnparkRequests(this.db)) {
      const stored = await this.readParked(request);
      if (!stored) {
        const status =
          'parked: the message is no longer in the stream (aged out, or the stream was made again); the next change or sync of the object applies it';
        await setStatus(this.db, request.kind, request.key, status);
        this.logger.warn(`${request.kind} ${request.key} ${status}`);
        continue;
      }
      // one more attempt: a failure parks it again at once
      const delivery = toDelivery(stored, stored.header, this.config.maxAttempts, request.streamEpoch);
      const read = this.prepare(delivery);
      // of a batch, only the parked object's change: the others were applied
      const prepared = 'parts' in read ? read.parts.find((p) => 'key' in p && p.key === `${request.kind}/${request.key}`) : read;
      if (!prepared || 'terminate' in prepared) continue;
      this.logger.log(`${request.kind} ${request.key}: applying parked message ${stored.seq} again`);
      await prepared.run().then(
        async (outcome) => {
          this.settled(delivery, outcome);
          // a lost race: asked again, for the next poll
          if ('retryAfterMs' in outcome) await requestUnpark(this.db, [request]).catch(() => undefined);
        },
        async (err: Error) => {
          // the database went away meanwhile: ask again
          await requestUnpark(this.db, [request]).catch(() => undefined);
          this.logger.warn(`${request.kind} ${request.key}: parked message not applied yet: ${err.message}`);
        },
      );
    }
  }

  /**
   * A parked message read back by its sequence, if its stream is still the one it was parked from:
   * in a stream made again since, that sequence is another message (the relist's newer state of
   * the object is what counts then). The stream is checked around the read, as it may be made
   * again meanwhile.
   */
  private async readParked(request: ParkedMessage): Promise<StoredMsg | null> {
    const { stream } = this.config.names;
    const same = () =>
      this.jsm!.streams.info(stream).then(
        (info) => request.created !== null && info.created === request.created,
        () => false,
      );
    if (!(await same())) return null;
    const stored = await this.jsm!.streams.getMessage(stream, { seq: request.parkedSequence }).catch(() => null);
    return stored && (await same()) ? stored : null;
  }

  /** A refusal by the domain is final for this message: it becomes the object's status instead of a retry. A lost race is no refusal. */
  private async refusalAsStatus(kind: KubeKind, what: string, apply: () => Promise<string>): Promise<string> {
    try {
      return await apply();
    } catch (err) {
      if (!(err instanceof DomainError) || isConflict(err)) throw err;
      const status = `refused: ${err.code}: ${err.message}`;
      this.logger.warn(`${kind} ${what} ${status}`);
      this.metrics.kubernetesMessages.inc({ kind, outcome: 'refused' });
      return status;
    }
  }

  /** Pools whose IPPool is gone but which were in use then: each IPPool sync tries to delete them again. */
  private async retryRefusedPoolDeletes(metadata: CommandMetadata): Promise<void> {
    for (const name of await refusedDeletes(this.db, 'ippool')) {
      const status = await this.refusalAsStatus('ippool', `DELETED ${name}`, () =>
        deleteOnce(this.commands.execute(new DeletePoolCommand(name, metadata)), 'POOL_NOT_FOUND'),
      );
      await setStatus(this.db, 'ippool', name, status);
    }
  }

  /** After the pools changed (an IPPool sync) and at each StatefulSet sync: another try for a range. */
  private async reconcileStatefulSetsWithoutRange(metadata: CommandMetadata): Promise<void> {
    for (const object of await statefulSetsWithoutRange(this.db)) {
      const status = await this.refusalAsStatus('statefulset', `again ${objectKey(object)}`, () =>
        applyStatefulSet(this.context(metadata), { kind: 'statefulset', type: 'MODIFIED', object }),
      );
      await setStatus(this.db, 'statefulset', objectKey(object), status);
    }
  }

  private async applySync(marker: SyncMarker, delivery: Delivery): Promise<Outcome> {
    const sync = await recordSyncChunk(this.db, marker);
    if (!sync) return ACKED;
    const previous = await previousSync(this.db, sync);
    const metadata = this.metadata(delivery, sync.syncId);
    const vanished = await recordMisses(this.db, sync, previous, positionOf(delivery), this.config.leakGraceSeconds);
    await this.deleteVanished(sync, vanished, metadata);
    if (sync.kind === 'ippool') await this.retryRefusedPoolDeletes(metadata);
    if (sync.kind === 'ippool' || sync.kind === 'statefulset') await this.reconcileStatefulSetsWithoutRange(metadata);
    if (sync.kind === 'pod') {
      const report = await collectLeaks(this.context(metadata), sync, previous, this.config.leakGraceSeconds);
      this.metrics.leakReleases.inc({ reason: 'pod-missing' }, report.released.length);
      for (const handle of report.released) this.logger.warn(`released leaked handle ${handle}: its pod was missing from two pod syncs`);
      if (report.suspects) this.logger.log(`${report.suspects} handle(s) whose pod this sync did not list: released after the next sync`);
      await this.adoption.everywhere(metadata);
    }
    await markSyncDone(this.db, sync);
    return ACKED;
  }

  /**
   * Objects deleted while nobody watched (their DELETED never came) are deleted now, as their
   * DELETED would have done: a StatefulSet's range or a workload's ip-set is released, a pool deleted. A pod's addresses
   * go through leak collection instead (its own evidence, per address).
   */
  private async deleteVanished(sync: CompleteSync, vanished: VanishedObject[], metadata: CommandMetadata): Promise<void> {
    for (const { key, uid, resourceVersion, missedBy } of vanished) {
      const [namespace, name] = key.includes('/') ? key.split('/') : [undefined, key];
      const object: KubeObject = { metadata: { name, namespace, uid, resourceVersion } };
      const status =
        sync.kind === 'pod'
          ? 'gone'
          : await this.refusalAsStatus(sync.kind, `vanished ${key}`, () =>
              APPLIERS[sync.kind](this.context(metadata), { kind: sync.kind, type: 'DELETED', object }),
            );
      this.logger.warn(`${sync.kind} ${key} was missing from syncs ${missedBy.map((m) => m.syncId).join(', ')}: ${status}`);
      await setStatus(this.db, sync.kind, key, status, true);
    }
  }

  private measureLag(delivery: Delivery): void {
    const kind = parseSubject(this.config.names, delivery.subject)?.kind;
    if (!kind || delivery.pending === undefined || delivery.publishedAtMs === undefined) return;
    this.metrics.consumerLagMessages.set({ kind }, delivery.pending);
    this.metrics.consumerLagSeconds.set({ kind }, Math.max(0, Date.now() - delivery.publishedAtMs) / 1000);
  }

  private settled(delivery: Delivery, outcome: Outcome): void {
    const kind = parseSubject(this.config.names, delivery.subject)?.kind ?? 'unknown';
    if ('terminate' in outcome) {
      this.logger.error(
        `malformed message ${delivery.messageId ?? ''} (stream sequence ${delivery.streamSequence}, epoch ${delivery.streamEpoch}) terminated: ${outcome.terminate}`,
      );
      this.metrics.kubernetesMessages.inc({ kind, outcome: 'malformed' });
    } else if ('retryAfterMs' in outcome) {
      this.logger.warn(
        `message ${delivery.messageId ?? ''} failed (delivery ${delivery.deliveryCount}), retried in ${outcome.retryAfterMs} ms: ${outcome.error.message}`,
      );
      this.metrics.kubernetesMessages.inc({ kind, outcome: 'retried' });
    } else {
      this.metrics.kubernetesMessages.inc({ kind, outcome: 'acked' });
    }
  }
}

/** The metadata of work the consumer does of its own accord (a timer), not for a message. */
const ownMetadata = (correlationId: string): CommandMetadata => ({
  actor: 'watcher',
  source: 'kubernetes',
  correlationId,
  causationId: correlationId,
});

const positionOf = (delivery: Delivery): StreamPosition => ({ streamEpoch: delivery.streamEpoch, streamSequence: delivery.streamSequence });

/** A lost race is no fault of the message: it is decided again on fresh state at its redelivery, soon, and never parked. */
function conflictRedelivery(err: unknown, delivery: Delivery): Outcome | null {
  return isConflict(err) ? { retryAfterMs: conflictDelayMs(delivery.deliveryCount), error: err as Error } : null;
}
