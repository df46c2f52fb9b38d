import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { Inject } from '@nestjs/common';
import { decideDeleteNode, DeleteNodeCommand, NodeAggregate, nodeStreamId } from '@ipledger/domain';
import { findPoolsWithBlocksOf } from '@ipledger/projections';
import type { Pool } from 'pg';
import { BlockRelease } from '../blocks/block-release';
import { EventWriter } from '../infrastructure/event-writer';
import { PG_POOL } from '../infrastructure/tokens';

/** The node goes, and with it its empty blocks; a block still holding addresses stays until they are freed. */
@CommandHandler(DeleteNodeCommand)
export class DeleteNodeHandler implements ICommandHandler<DeleteNodeCommand, void> {
  constructor(
    private readonly writer: EventWriter,
    private readonly blocks: BlockRelease,
    @Inject(PG_POOL) private readonly db: Pool,
  ) {}

  async execute({ name, metadata, unit, cluster }: DeleteNodeCommand): Promise<void> {
    const id = nodeStreamId(cluster, name);
    await this.writer.decideAndAppend(NodeAggregate, id, (state) => decideDeleteNode(state, name, cluster), metadata, unit);
    for (const pool of await findPoolsWithBlocksOf(this.db, name, cluster)) await this.blocks.ofNode(pool, name, metadata, unit, cluster);
  }
}
