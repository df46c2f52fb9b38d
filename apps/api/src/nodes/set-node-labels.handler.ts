import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  decideSetNodeLabels,
  NodeAggregate,
  nodeStreamId,
  SetNodeLabelsCommand,
  validateClusterName,
  validateDns1123Subdomain,
  validateLabels,
} from '@ipledger/domain';
import { EventWriter } from '../infrastructure/event-writer';

@CommandHandler(SetNodeLabelsCommand)
export class SetNodeLabelsHandler implements ICommandHandler<SetNodeLabelsCommand, void> {
  constructor(private readonly writer: EventWriter) {}

  async execute({ name, labels, metadata, unit, cluster }: SetNodeLabelsCommand): Promise<void> {
    validateDns1123Subdomain(name, 'node name');
    validateClusterName(cluster);
    const valid = validateLabels(labels);
    const id = nodeStreamId(cluster, name);
    await this.writer.decideAndAppend(NodeAggregate, id, (state) => decideSetNodeLabels(state, name, valid, cluster), metadata, unit);
  }
}
