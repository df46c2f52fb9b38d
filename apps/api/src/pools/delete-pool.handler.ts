import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decideDeletePool, DeletePoolCommand, PoolAggregate } from '@ipledger/domain';
import { EventWriter } from '../infrastructure/event-writer';

@CommandHandler(DeletePoolCommand)
export class DeletePoolHandler implements ICommandHandler<DeletePoolCommand, void> {
  constructor(private readonly writer: EventWriter) {}

  async execute({ name, metadata, unit }: DeletePoolCommand): Promise<void> {
    await this.writer.decideAndAppend(PoolAggregate, name, (state) => decideDeletePool(state, name), metadata, unit);
  }
}
