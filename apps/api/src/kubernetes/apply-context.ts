import type { CommandBus } from '@nestjs/cqrs';
import { DomainError, type CommandMetadata, type DomainErrorCode, type UnitOfWork } from '@ipledger/domain';
import type { Delivery } from '@ipledger/messaging';
import { findPoolsByName, type PoolView } from '@ipledger/projections';
import type { Pool } from 'pg';
import { ReadBatcher } from '../infrastructure/read-batcher';
import type { Metrics } from '../metrics/metrics';

/** What an object applier needs: the bus its commands go through, the read models, and the audit metadata. */
export interface ApplyContext {
  commands: CommandBus;
  db: Pool;
  metadata: CommandMetadata;
  /** the cluster the message's watcher watches (IPAM_CLUSTER): its objects are that cluster's nodes, handles, pods */
  cluster: string;
  /** how the commands' writes commit: named by the consumer's unit that applies the message (or runs the timer) */
  unit: UnitOfWork;
  /** IPAM_DEFAULT_MATCH_LABEL: the label key that ties nodes to their pools */
  defaultMatchLabel: string | null;
  metrics: Metrics;
  /** a pool as the read model holds it (reads that meet are made together) */
  findPool: (name: string) => Promise<PoolView | null>;
}

/** Makes the contexts of the consumer's work, all sharing one batcher of pool reads (every IPPool message makes one). */
export class ApplyContexts {
  private readonly pools: ReadBatcher<string, PoolView | null>;

  constructor(private readonly base: Omit<ApplyContext, 'metadata' | 'unit' | 'cluster' | 'findPool'>) {
    this.pools = new ReadBatcher(async (names) => {
      const found = new Map((await findPoolsByName(base.db, names)).map((pool) => [pool.name, pool]));
      return names.map((name) => found.get(name) ?? null);
    });
  }

  for(metadata: CommandMetadata, unit: UnitOfWork, cluster: string): ApplyContext {
    return { ...this.base, metadata, unit, cluster, findPool: (name) => this.pools.read(name) };
  }
}

/** The metadata of the commands a message runs: audited under the message, its position recorded. */
export const messageMetadata = (delivery: Delivery, correlationId: string): CommandMetadata => ({
  actor: 'watcher',
  source: 'kubernetes',
  correlationId,
  causationId: delivery.messageId,
  messageId: delivery.messageId,
  streamSequence: delivery.streamSequence,
  streamEpoch: delivery.streamEpoch,
});

/** The metadata of work the consumer does of its own accord (a timer), not for a message. */
export const ownMetadata = (correlationId: string): CommandMetadata => ({
  actor: 'watcher',
  source: 'kubernetes',
  correlationId,
  causationId: correlationId,
});

/** A Kubernetes delete is a fact, not a request: "not found" means an earlier delivery already applied it. */
export async function deleteOnce(command: Promise<unknown>, notFound: DomainErrorCode): Promise<string> {
  try {
    await command;
    return 'deleted';
  } catch (err) {
    if (err instanceof DomainError && err.code === notFound) return 'already deleted';
    throw err;
  }
}
