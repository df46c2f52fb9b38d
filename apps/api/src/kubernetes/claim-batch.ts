import { objectKey } from '@ipledger/messaging';
import type { Pool } from 'pg';
import { BatchQueue } from '../infrastructure/batch-queue';
import { isDatabaseUnavailable } from '../infrastructure/database-unavailable';
import { claimObjects, objectIdentity, StaleMessage, type Claim } from './kubernetes-objects';
import { olderThan } from '@ipledger/projections';

interface Waiting {
  claim: Claim;
  resolve(): void;
  reject(reason: unknown): void;
}

/**
 * The messages whose whole effect is their record (a live Pod: nothing to decide) are recorded
 * together, one statement for every message that meets (see BatchQueue), as the group commit does
 * for allocations: an initial sync of 150,000 pods costs a few hundred statements, not 150,000
 * transactions. Each message is answered once the statement committed, so it is acknowledged
 * after its record and its object's next message waits for it (the consumer's per-object order);
 * a redelivered one is recorded again or found stale, both harmless.
 */
export class ClaimBatch {
  private readonly queue: BatchQueue<Waiting>;

  constructor(db: Pool) {
    this.queue = new BatchQueue((batch) => this.commit(db, batch));
  }

  /** Resolves once recorded; StaleMessage when a newer message of the object was applied first. */
  record(claim: Claim): Promise<void> {
    return new Promise((resolve, reject) => this.queue.push({ claim, resolve, reject }));
  }

  private async commit(db: Pool, batch: Waiting[]): Promise<void> {
    // one row per object in a statement: of two messages of one object (a parked one applied again runs outside the consumer's order), the older is stale
    const newest = new Map<string, Waiting>();
    const stale: Waiting[] = [];
    for (const waiting of batch) {
      const key = objectIdentity(waiting.claim.change);
      const other = newest.get(key);
      if (other && olderThan(waiting.claim, other.claim)) stale.push(waiting);
      else {
        if (other) stale.push(other);
        newest.set(key, waiting);
      }
    }
    const claims = [...newest.values()];
    try {
      await this.claim(db, claims, stale);
    } catch (err) {
      if (claims.length === 1 || isDatabaseUnavailable(err)) claims.forEach((w) => w.reject(err));
      // one message the statement cannot take must not fail the others: each alone, so only it is retried (and parked)
      else for (const w of claims) await this.claim(db, [w], stale).catch((one: unknown) => w.reject(one));
    }
    for (const w of stale)
      w.reject(new StaleMessage(`${w.claim.change.kind} ${objectKey(w.claim.change.object)}: a newer message was applied`));
  }

  private async claim(db: Pool, claims: Waiting[], stale: Waiting[]): Promise<void> {
    const recorded = await claimObjects(
      db,
      claims.map((w) => w.claim),
    );
    claims.forEach((w, i) => (recorded[i] ? w.resolve() : stale.push(w)));
  }
}
