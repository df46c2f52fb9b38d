import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_CLUSTER } from '@ipledger/domain';
import { findCluster } from '@ipledger/projections';
import type { Pool } from 'pg';
import { PG_POOL } from '../infrastructure/tokens';

/** The label value of what happened in no existing cluster: a cluster name is a DNS label, never empty. */
export const NO_CLUSTER = '';

/**
 * The `cluster` label of an allocation's metrics: one value per cluster, so a fleet's series stay
 * as few as its clusters. A refusal may name a cluster that does not exist (it creates none):
 * counted under NO_CLUSTER, or any caller could add a series a request.
 */
@Injectable()
export class ClusterLabels {
  /** the clusters seen to exist: a name once here is never looked up again (a deleted one stays, as its series do) */
  private readonly known = new Set([DEFAULT_CLUSTER]);

  constructor(@Inject(PG_POOL) private readonly db: Pool) {}

  /** An allocation made in the cluster: it exists now. */
  existing(cluster: string): string {
    this.known.add(cluster);
    return cluster;
  }

  /** A refused or failed allocation: its cluster if that exists, else NO_CLUSTER (also when the database cannot say). */
  async refused(cluster: string): Promise<string> {
    if (this.known.has(cluster)) return cluster;
    const found = await findCluster(this.db, cluster).catch(() => null);
    return found ? this.existing(cluster) : NO_CLUSTER;
  }
}
