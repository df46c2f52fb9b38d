import type { ObjectChange } from '@ipledger/messaging';
import type { PoolClient } from 'pg';
import { BatchQueue } from '../infrastructure/batch-queue';
import { isDatabaseUnavailable } from '../infrastructure/database-unavailable';
import type { Change, EventWriter } from '../infrastructure/event-writer';
import { claimObjects, StaleMessage, type Claim } from './kubernetes-objects';

/**
 * The messages whose commands append once and read nothing back (a live Node's labels, an IPPool's
 * pool): their appends can be deferred and committed with other messages' (see CommitBatch).
 */
export const committedInBatches = (change: ObjectChange): boolean =>
  (change.kind === 'node' || change.kind === 'ippool') && change.type !== 'DELETED';

/** One message decided alone (its appends deferred: DeferredWrites), waiting to be committed with others. */
export interface Decided {
  /** the object's record with its final status */
  claim: Claim;
  changes: Change[];
  /** stream id -> the version the decision read */
  reads: ReadonlyMap<string, number>;
  /** the message applied by itself (its own fenced transactions), when the batch it met cannot be committed */
  alone(): Promise<void>;
}

interface Waiting {
  decided: Decided;
  resolve(): void;
  reject(reason: unknown): void;
}

/**
 * Messages that each decide on a few streams and append once (a Node's labels, an IPPool's pool)
 * are committed together, one transaction for every message that meets (see BatchQueue): their
 * objects' records (each message's order check, with its final status), the version of every
 * stream they read, their events and the projections. An initial sync of 5,000 Nodes then costs
 * a few dozen transactions instead of two each. Each message is answered once the transaction
 * committed (its acknowledgement and its object's next message wait for it). A batch that cannot
 * commit whole (an object's newer message applied first, a stream moved, a pool that overlaps
 * one the database holds) applies each message alone, in the batch's order, so only a failing
 * one fails, and it fails as it would have alone.
 */
export class CommitBatch {
  private readonly queue: BatchQueue<Waiting>;

  constructor(private readonly writer: EventWriter) {
    this.queue = new BatchQueue((batch) => this.commitAll(batch));
  }

  /** Resolves once committed; rejects as the message alone would have. */
  add(decided: Decided): Promise<void> {
    return new Promise((resolve, reject) => this.queue.push({ decided, resolve, reject }));
  }

  private async commitAll(batch: Waiting[]): Promise<void> {
    try {
      await this.writer.commitGroup(
        batch.flatMap((w) => w.decided.changes),
        mergedReads(batch.map((w) => w.decided)),
        (client) => claimAll(client, batch),
      );
      batch.forEach((w) => w.resolve());
    } catch (err) {
      if (isDatabaseUnavailable(err)) batch.forEach((w) => w.reject(err));
      else
        for (const w of batch)
          await w.decided.alone().then(
            () => w.resolve(),
            (err: unknown) => w.reject(err),
          );
    }
  }
}

/** The versions every message read, each stream once: a stream two messages touch leaves them to be applied alone. */
function mergedReads(batch: Decided[]): Map<string, number> {
  const reads = new Map<string, number>();
  const seen = new Set<string>();
  for (const decided of batch) {
    const streams = new Set([...decided.reads.keys(), ...decided.changes.map((change) => change.loaded.streamId)]);
    for (const streamId of streams) {
      if (seen.has(streamId)) throw new Error(`stream ${streamId} is in two messages of one batch`);
      seen.add(streamId);
    }
    for (const [streamId, version] of decided.reads) reads.set(streamId, version);
  }
  return reads;
}

/** Every object's record in one statement, first in the transaction; a stale message (a newer one applied) refuses the batch. */
async function claimAll(client: PoolClient, batch: Waiting[]): Promise<void> {
  const recorded = await claimObjects(
    client,
    batch.map((w) => w.decided.claim),
  );
  const stale = recorded.indexOf(false);
  if (stale >= 0) throw new StaleMessage(`${batch[stale].decided.claim.change.kind}: a newer message was applied`);
}
