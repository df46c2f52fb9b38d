import type { CommandBus } from '@nestjs/cqrs';
import { DomainError, type CommandMetadata, type DomainErrorCode } from '@ipledger/domain';
import type { PoolView } from '@ipledger/projections';
import type { Pool } from 'pg';
import type { Metrics } from '../metrics/metrics';

/** What an object applier needs: the bus its commands go through, the read models, and the audit metadata. */
export interface ApplyContext {
  commands: CommandBus;
  db: Pool;
  metadata: CommandMetadata;
  /** IPAM_DEFAULT_MATCH_LABEL: the label key that ties nodes to their pools */
  defaultMatchLabel: string | null;
  metrics: Metrics;
  /** a pool as the read model holds it (reads that meet are made together) */
  findPool: (name: string) => Promise<PoolView | null>;
}

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
