import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ClusterAggregate, decideDeleteCluster, DeleteClusterCommand, validateClusterName } from '@ipledger/domain';
import { EventWriter } from '../infrastructure/event-writer';

/** Nodes, handles, StatefulSets and ip-sets are all the default cluster's until they are scoped per cluster: a named cluster holds nothing yet. */
@CommandHandler(DeleteClusterCommand)
export class DeleteClusterHandler implements ICommandHandler<DeleteClusterCommand, void> {
  constructor(private readonly writer: EventWriter) {}

  async execute({ name, metadata, unit }: DeleteClusterCommand): Promise<void> {
    validateClusterName(name);
    await this.writer.decideAndAppend(ClusterAggregate, name, (state) => decideDeleteCluster(state, name), metadata, unit);
  }
}
