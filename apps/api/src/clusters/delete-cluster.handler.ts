import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ClusterAggregate, decideDeleteCluster, DeleteClusterCommand, validateClusterName } from '@ipledger/domain';
import { Inject } from '@nestjs/common';
import { findClusterHoldings } from '@ipledger/projections';
import type { Pool } from 'pg';
import { EventWriter } from '../infrastructure/event-writer';
import { PG_POOL } from '../infrastructure/tokens';
import { ListedClusters } from './listed-clusters';

/**
 * A cluster goes once it holds no node, allocation, StatefulSet reservation or ip-set. What it
 * holds is read from the read models before the decision, so a node or allocation written in that very moment may outlive the cluster; the next write in it
 * then creates the cluster again (ClusterPresence).
 */
@CommandHandler(DeleteClusterCommand)
export class DeleteClusterHandler implements ICommandHandler<DeleteClusterCommand, void> {
  constructor(
    private readonly writer: EventWriter,
    @Inject(PG_POOL) private readonly db: Pool,
    private readonly listed: ListedClusters,
  ) {}

  async execute({ name, metadata, unit }: DeleteClusterCommand): Promise<void> {
    validateClusterName(name);
    const holdings = await findClusterHoldings(this.db, name);
    await this.writer.decideAndAppend(ClusterAggregate, name, (state) => decideDeleteCluster(state, name, holdings), metadata, unit);
    // the next read here answers 404, the next write lists it again
    this.listed.forget(name);
  }
}
