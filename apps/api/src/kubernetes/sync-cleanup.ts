import type { Logger } from '@nestjs/common';
import type { CommandBus } from '@nestjs/cqrs';
import { DEFAULT_CLUSTER, DeletePoolCommand, type CommandMetadata, type UnitOfWork } from '@ipledger/domain';
import { objectKey, type Delivery, type KubeObject } from '@ipledger/messaging';
import type { ClusterSync } from './kube-message';
import {
  clusterKey,
  markSyncDone,
  previousSync,
  recordMisses,
  recordSyncChunk,
  refusedDeletes,
  setObjectStatus,
  statefulSetsWithoutRange,
  type CompleteSync,
  type VanishedObject,
} from '@ipledger/projections';
import type { Pool } from 'pg';
import { OwnTransaction } from '../infrastructure/unit-of-work';
import type { Metrics } from '../metrics/metrics';
import { deleteOnce, messageMetadata, type ApplyContexts } from './apply-context';
import { APPLIERS } from './appliers';
import { collectLeaks } from './leak-collector';
import type { PodAdoption } from './pod-adoption';
import { ACK, afterFailure, positionOf, type Delivered, type Reconciled, type Reconciler } from './reconciler';
import { refusalAsStatus, type StatusOf } from './refusal-as-status';

export interface SyncCleanupConfig {
  maxAttempts: number;
  leakGraceSeconds: number;
}

/**
 * What a complete sync (every chunk of its marker in) sets right: objects deleted while nobody
 * watched, pool deletes refused before, StatefulSets still without a range, and, at a pod sync,
 * leaked addresses and pods to adopt. Every step is idempotent: a marker redelivered, or one that
 * failed half way, runs them again until the sync is marked done.
 */
export class SyncCleanup implements Reconciler<ClusterSync> {
  private readonly statusOf: StatusOf;

  constructor(
    private readonly db: Pool,
    private readonly commands: CommandBus,
    private readonly contexts: ApplyContexts,
    private readonly adoption: PodAdoption,
    private readonly config: SyncCleanupConfig,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
  ) {
    this.statusOf = refusalAsStatus(logger, metrics);
  }

  async reconcile(_key: string, { change: marker, delivery }: Delivered<ClusterSync>): Promise<Reconciled> {
    try {
      const sync = await recordSyncChunk(this.db, marker.cluster, marker);
      // the marker is redelivered after a conflict: the commands try once
      if (sync) await this.cleanUp(sync, messageMetadata(delivery, sync.syncId), delivery, new OwnTransaction({ retries: false }));
      return ACK;
    } catch (err) {
      return afterFailure(err, delivery, this.config.maxAttempts);
    }
  }

  private async cleanUp(sync: CompleteSync, metadata: CommandMetadata, delivery: Delivery, unit: UnitOfWork): Promise<void> {
    const previous = await previousSync(this.db, sync);
    const vanished = await recordMisses(this.db, sync, previous, positionOf(delivery), this.config.leakGraceSeconds);
    await this.deleteVanished(sync, vanished, metadata, unit);
    if (sync.kind === 'ippool') await this.retryRefusedPoolDeletes(sync.cluster, metadata, unit);
    if (sync.kind === 'ippool' || sync.kind === 'statefulset') await this.reconcileStatefulSetsWithoutRange(sync.cluster, metadata, unit);
    if (sync.kind === 'pod') {
      const report = await collectLeaks(this.contexts.for(metadata, unit, sync.cluster), sync, previous, this.config.leakGraceSeconds);
      this.metrics.leakReleases.inc({ reason: 'pod-missing' }, report.released.length);
      for (const handle of report.released)
        this.logger.warn(`released leaked handle ${handle} (cluster ${sync.cluster}): its pod was missing from two pod syncs`);
      if (report.suspects) this.logger.log(`${report.suspects} handle(s) whose pod this sync did not list: released after the next sync`);
      if (sync.cluster === DEFAULT_CLUSTER) await this.adoption.everywhere(metadata, unit);
    }
    await markSyncDone(this.db, sync);
  }

  /** Pools whose IPPool is gone but which were in use then: each IPPool sync tries to delete them again. */
  private async retryRefusedPoolDeletes(cluster: string, metadata: CommandMetadata, unit: UnitOfWork): Promise<void> {
    for (const name of await refusedDeletes(this.db, cluster, 'ippool')) {
      const status = await this.statusOf('ippool', `DELETED ${name}`, () =>
        deleteOnce(this.commands.execute(new DeletePoolCommand(name, metadata, unit)), 'POOL_NOT_FOUND'),
      );
      await setObjectStatus(this.db, 'ippool', clusterKey(cluster, name), status);
    }
  }

  /** After the pools changed (an IPPool sync) and at each StatefulSet sync: another try for a range. */
  private async reconcileStatefulSetsWithoutRange(cluster: string, metadata: CommandMetadata, unit: UnitOfWork): Promise<void> {
    for (const object of await statefulSetsWithoutRange(this.db, cluster)) {
      const status = await this.statusOf('statefulset', `again ${objectKey(object)}`, () =>
        APPLIERS.statefulset(this.contexts.for(metadata, unit, cluster), { kind: 'statefulset', type: 'MODIFIED', object }),
      );
      await setObjectStatus(this.db, 'statefulset', clusterKey(cluster, objectKey(object)), status);
    }
  }

  /**
   * Objects deleted while nobody watched (their DELETED never came) are deleted now, as their
   * DELETED would have done: a StatefulSet's range or a workload's ip-set is released, a pool deleted. A pod's addresses
   * go through leak collection instead (its own evidence, per address).
   */
  private async deleteVanished(sync: CompleteSync, vanished: VanishedObject[], metadata: CommandMetadata, unit: UnitOfWork): Promise<void> {
    for (const { key, uid, resourceVersion, missedBy } of vanished) {
      const [namespace, name] = key.includes('/') ? key.split('/') : [undefined, key];
      const object: KubeObject = { metadata: { name, namespace, uid, resourceVersion } };
      const status =
        sync.kind === 'pod'
          ? 'gone'
          : await this.statusOf(sync.kind, `vanished ${key}`, () =>
              APPLIERS[sync.kind](this.contexts.for(metadata, unit, sync.cluster), { kind: sync.kind, type: 'DELETED', object }),
            );
      this.logger.warn(
        `${sync.kind} ${key} (cluster ${sync.cluster}) was missing from syncs ${missedBy.map((m) => m.syncId).join(', ')}: ${status}`,
      );
      await setObjectStatus(this.db, sync.kind, clusterKey(sync.cluster, key), status, true);
    }
  }
}
