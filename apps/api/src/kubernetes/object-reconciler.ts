import type { Logger } from '@nestjs/common';
import type { UnitOfWork } from '@ipledger/domain';
import { objectKey, type Delivery, type ObjectChange } from '@ipledger/messaging';
import type { ClusterChange } from './kube-message';
import type { StreamPosition } from '@ipledger/projections';
import type { Pool } from 'pg';
import type { EventWriter } from '../infrastructure/event-writer';
import { ReadBatcher } from '../infrastructure/read-batcher';
import { DeferredWrites, FencedWrites, OwnTransaction } from '../infrastructure/unit-of-work';
import type { Metrics } from '../metrics/metrics';
import { messageMetadata, type ApplyContexts } from './apply-context';
import { APPLIERS } from './appliers';
import { ClaimBatch } from './claim-batch';
import { CommitBatch, committedInBatches } from './commit-batch';
import { alreadyApplied, claimObject, StaleMessage } from './kubernetes-objects';
import type { PodAdoption } from './pod-adoption';
import { onlyRecorded } from './pod.applier';
import { ACK, afterFailure, positionOf, type Delivered, type Reconciled, type Reconciler } from './reconciler';
import { refusalAsStatus, type StatusOf } from './refusal-as-status';

/**
 * Reconciles one object's message: its kind's applier (APPLIERS) decides, and the message is
 * recorded as the object's last applied one in the same commit as its events, so an older message
 * never undoes a newer one. A refusal by the domain is final (the object's status, acknowledged);
 * a lost race is requeued (no command inside retries on its own); a message that keeps failing is
 * parked. Three ways to commit, each a unit of work named here, by what the message needs: only
 * recorded (a live Pod: its commands' own transactions, tried once), committed in a batch with the
 * messages that meet (DeferredWrites), or alone under a fence (FencedWrites).
 */
export class ObjectReconciler implements Reconciler<ClusterChange> {
  private readonly claims: ClaimBatch;
  private readonly batches: CommitBatch;
  /** the reads every Node or IPPool message makes, one query for those that meet */
  private readonly applied: ReadBatcher<{ change: ClusterChange } & StreamPosition, boolean>;
  private readonly statusOf: StatusOf;

  constructor(
    private readonly db: Pool,
    private readonly writer: EventWriter,
    private readonly contexts: ApplyContexts,
    private readonly adoption: PodAdoption,
    private readonly maxAttempts: number,
    logger: Logger,
    metrics: Metrics,
  ) {
    this.claims = new ClaimBatch(db);
    this.batches = new CommitBatch(writer);
    this.applied = new ReadBatcher((messages) => alreadyApplied(db, messages));
    this.statusOf = refusalAsStatus(logger, metrics);
  }

  /** Whether the message's work joins a statement shared with others (holding no connection of its own). */
  static batched(change: ObjectChange): boolean {
    return onlyRecorded(change) || committedInBatches(change);
  }

  async reconcile(_key: string, { change, delivery }: Delivered<ClusterChange>): Promise<Reconciled> {
    try {
      if (onlyRecorded(change)) await this.recordLive(change, delivery);
      // a shortcut only (a redelivered old message runs no command): the fence below is the guarantee
      else if (await this.applied.read({ change, ...positionOf(delivery) })) return ACK;
      else if (committedInBatches(change)) await this.applyInBatch(change, delivery);
      else await this.applyFenced(change, delivery);
      return ACK;
    } catch (err) {
      if (err instanceof StaleMessage) return ACK;
      return afterFailure(err, delivery, this.maxAttempts);
    }
  }

  private apply(
    change: ClusterChange,
    delivery: Delivery,
    unit: UnitOfWork,
    metadata = messageMetadata(delivery, change.object.metadata.uid),
  ): Promise<string> {
    const ctx = this.contexts.for(metadata, unit, change.cluster);
    return this.statusOf(change.kind, `${change.type} ${objectKey(change.object)}`, () => APPLIERS[change.kind](ctx, change));
  }

  /** A message that only records its object (see onlyRecorded): decided alone (a refusal is its status), recorded with the others that meet. */
  private async recordLive(change: ClusterChange, delivery: Delivery): Promise<void> {
    const metadata = messageMetadata(delivery, change.object.metadata.uid);
    // a conflict requeues the message: its commands try once
    const unit = new OwnTransaction({ retries: false });
    const status = await this.apply(change, delivery, unit, metadata);
    await this.claims.record({ change, ...positionOf(delivery), status });
    // acknowledged once adopted: a failure here delivers the message again, and its adoption is tried again
    if (change.kind === 'pod') await this.adoption.podRecorded(change, metadata, unit);
  }

  /**
   * Applies the message under a fence: every append of its commands first claims the object's row
   * (order check and record in the append's transaction), and the final status is confirmed only
   * while every stream the commands read is still as they read it. A no-op decided on a state that
   * an older message's late transaction changed meanwhile is thus decided again, never recorded.
   */
  private async applyFenced(change: ClusterChange, delivery: Delivery): Promise<void> {
    const fence = new FencedWrites((client) => claimObject(client, change, positionOf(delivery), 'applying'));
    const status = await this.apply(change, delivery, fence);
    await this.writer.confirm(fence.reads, (client) => claimObject(client, change, positionOf(delivery), status));
  }

  /**
   * applyFenced with the commit shared: decided alone, its appends deferred, then committed with
   * the messages that meet (see CommitBatch), which check its object's order and every stream it
   * read as the fence does; applied alone after all when the batch cannot commit whole.
   */
  private async applyInBatch(change: ClusterChange, delivery: Delivery): Promise<void> {
    const deferred = new DeferredWrites();
    const status = await this.apply(change, delivery, deferred);
    await this.batches.add({
      claim: { change, ...positionOf(delivery), status },
      changes: deferred.changes,
      reads: deferred.reads,
      alone: () => this.applyFenced(change, delivery),
    });
  }
}
