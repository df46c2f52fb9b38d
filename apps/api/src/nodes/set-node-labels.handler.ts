import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { decideSetNodeLabels, NodeAggregate, SetNodeLabelsCommand, validateDns1123Subdomain, validateLabels } from '@ipledger/domain';
import { EventWriter } from '../infrastructure/event-writer';

@CommandHandler(SetNodeLabelsCommand)
export class SetNodeLabelsHandler implements ICommandHandler<SetNodeLabelsCommand, void> {
  constructor(private readonly writer: EventWriter) {}

  async execute({ name, labels, metadata, unit }: SetNodeLabelsCommand): Promise<void> {
    validateDns1123Subdomain(name, 'node name');
    const valid = validateLabels(labels);
    await this.writer.decideAndAppend(NodeAggregate, name, (state) => decideSetNodeLabels(state, name, valid), metadata, unit);
  }
}
