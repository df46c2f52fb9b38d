import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ClusterAggregate, decideSetClusterLabels, SetClusterLabelsCommand, validateClusterName, validateLabels } from '@ipledger/domain';
import { EventWriter } from '../infrastructure/event-writer';

@CommandHandler(SetClusterLabelsCommand)
export class SetClusterLabelsHandler implements ICommandHandler<SetClusterLabelsCommand, void> {
  constructor(private readonly writer: EventWriter) {}

  async execute({ name, labels, metadata, unit }: SetClusterLabelsCommand): Promise<void> {
    validateClusterName(name);
    const valid = validateLabels(labels);
    await this.writer.decideAndAppend(ClusterAggregate, name, (state) => decideSetClusterLabels(state, name, valid), metadata, unit);
  }
}
