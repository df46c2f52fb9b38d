import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decideDeleteNode, DeleteNodeCommand, NodeAggregate } from '@ipledger/domain';
import { EventWriter } from '../infrastructure/event-writer';

@CommandHandler(DeleteNodeCommand)
export class DeleteNodeHandler implements ICommandHandler<DeleteNodeCommand, void> {
  constructor(private readonly writer: EventWriter) {}

  async execute({ name, metadata }: DeleteNodeCommand): Promise<void> {
    await this.writer.decideAndAppend(NodeAggregate, name, (state) => decideDeleteNode(state, name), metadata);
  }
}
