import { Inject, Injectable } from '@nestjs/common';
import {
  ClusterAggregate,
  DEFAULT_CLUSTER,
  decideEnsureCluster,
  DomainError,
  validateClusterName,
  type CommandMetadata,
} from '@ipledger/domain';
import { findCluster } from '@ipledger/projections';
import type { Pool } from 'pg';
import { EventWriter } from '../infrastructure/event-writer';
import { PG_POOL } from '../infrastructure/tokens';
import { OwnTransaction } from '../infrastructure/unit-of-work';
import { ListedClusters } from './listed-clusters';

/**
 * A cluster named by a route or a body: a write in a cluster that does not exist creates it (no
 * labels), as a member's first node or allocation introduces it; a read of one answers 404.
 */
@Injectable()
export class ClusterPresence {
  constructor(
    private readonly writer: EventWriter,
    @Inject(PG_POOL) private readonly db: Pool,
    private readonly listed: ListedClusters,
  ) {}

  async forRead(cluster: string): Promise<string> {
    validateClusterName(cluster);
    if (!(await this.isListed(cluster))) {
      throw new DomainError('CLUSTER_NOT_FOUND', `cluster "${cluster}" does not exist`);
    }
    return cluster;
  }

  /**
   * A write in the cluster, which then exists: it is created after the write succeeded, so a
   * refused write (invalid input, no address) appends nothing. Should the server stop in between,
   * the node or allocation stands in a cluster not listed yet; the next write in it lists it.
   */
  async writeIn<T>(cluster: string, metadata: CommandMetadata, write: (cluster: string) => Promise<T>): Promise<T> {
    validateClusterName(cluster);
    const result = await write(cluster);
    if (!(await this.isListed(cluster))) {
      await this.writer.decideAndAppend(
        ClusterAggregate,
        cluster,
        (state) => decideEnsureCluster(state, cluster),
        metadata,
        new OwnTransaction({ retries: true }),
      );
      this.listed.add(cluster);
    }
    return result;
  }

  private async isListed(cluster: string): Promise<boolean> {
    if (cluster === DEFAULT_CLUSTER || this.listed.has(cluster)) return true;
    const found = Boolean(await findCluster(this.db, cluster));
    if (found) this.listed.add(cluster);
    return found;
  }
}
