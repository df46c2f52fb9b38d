import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { canonicalNodeSelector, decideUpdatePool, PoolAggregate, UpdatePoolCommand, validateLabels } from '@ipledger/domain';
import { EventWriter } from '../infrastructure/event-writer';

@CommandHandler(UpdatePoolCommand)
export class UpdatePoolHandler implements ICommandHandler<UpdatePoolCommand, void> {
  constructor(private readonly writer: EventWriter) {}

  async execute({ name, patch, metadata }: UpdatePoolCommand): Promise<void> {
    const valid = {
      labels: patch.labels === undefined ? undefined : validateLabels(patch.labels),
      nodeSelector: patch.nodeSelector === undefined ? undefined : canonicalNodeSelector(patch.nodeSelector),
      disabled: patch.disabled,
    };
    await this.writer.decideAndAppend(PoolAggregate, name, (state) => decideUpdatePool(state, name, valid), metadata);
  }
}
