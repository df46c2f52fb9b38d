import type { Logger } from '@nestjs/common';
import { objectKey, type Delivery, type SyncMarker } from '@ipledger/messaging';
import type { Pool } from 'pg';
import type { Metrics } from '../metrics/metrics';
import type { ClusterChange } from './kube-message';
import { parkObject } from './kubernetes-objects';
import { positionOf } from './reconciler';

/**
 * Messages that kept failing (a reconciler answered park) are set aside, so that the messages
 * behind them go on: an object's is parked in its row (its status says why; applied again at its
 * next change, or on `npm run cli -- unpark`, see Unparking); a sync marker has no object to park
 * and is only logged and counted: the next sync does its work.
 */
export class Parking {
  constructor(
    private readonly db: Pool,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
  ) {}

  async park(change: ClusterChange, delivery: Delivery, reason: string): Promise<void> {
    const status = `parked ${reason}`;
    await parkObject(this.db, change, positionOf(delivery), status);
    this.metrics.kubernetesMessages.inc({ kind: change.kind, outcome: 'parked' });
    this.logger.error(
      `${change.kind} ${objectKey(change.object)} (cluster ${change.cluster}) ${status} (stream sequence ${delivery.streamSequence}, epoch ${delivery.streamEpoch}); ` +
        'applied again at its next change, or on `npm run cli -- unpark`',
    );
  }

  setAside(sync: SyncMarker, reason: string): void {
    this.metrics.kubernetesMessages.inc({ kind: sync.kind, outcome: 'parked' });
    this.logger.error(`${sync.kind} sync ${sync.syncId} set aside ${reason}; the next sync does its work`);
  }
}
