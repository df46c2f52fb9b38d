import { randomUUID } from 'node:crypto';
import type { Logger } from '@nestjs/common';
import { DEFAULT_CLUSTER } from '@ipledger/domain';
import type { Metrics } from '../metrics/metrics';
import { OwnTransaction } from '../infrastructure/unit-of-work';
import { ownMetadata, type ApplyContexts } from './apply-context';
import { releaseForUnreachableNodes } from './held-for-node';

/** How often held addresses are checked against their node's grace: a quarter of it, within these bounds. */
const HELD_POLL_MIN_MS = 500;
const HELD_POLL_MAX_MS = 15_000;

/**
 * Addresses held for a node that stayed not Ready past IPAM_UNREACHABLE_NODE_GRACE_SECONDS are
 * released on a timer, as no message says that time has passed (every replica looks; releases
 * are idempotent).
 */
export class HeldAddressTimer {
  constructor(
    private readonly contexts: ApplyContexts,
    private readonly graceSeconds: number,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
  ) {}

  get intervalMs(): number {
    return Math.min(HELD_POLL_MAX_MS, Math.max(HELD_POLL_MIN_MS, (this.graceSeconds * 1000) / 4));
  }

  async tick(): Promise<void> {
    const released = await releaseForUnreachableNodes(
      // a timer's work: nothing redelivers it, so its commands retry their conflicts
      this.contexts.for(ownMetadata(randomUUID()), new OwnTransaction({ retries: true }), DEFAULT_CLUSTER),
      this.graceSeconds,
    );
    this.metrics.leakReleases.inc({ reason: 'node-unreachable' }, released.length);
    for (const handle of released) {
      this.logger.warn(`released handle ${handle}: held for a node not Ready for ${this.graceSeconds} s`);
    }
  }
}
