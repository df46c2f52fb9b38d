import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  ClaimAggregate,
  DEFAULT_CLUSTER,
  decidePutClaim,
  PutClaimCommand,
  validateClaimName,
  validateClusterName,
  validateNetwork,
} from '@ipledger/domain';
import { EventWriter } from '../infrastructure/event-writer';

/** Creates a persistent claim, or makes an allocation's transient one persistent; the same PUT again appends nothing. */
@CommandHandler(PutClaimCommand)
export class PutClaimHandler implements ICommandHandler<PutClaimCommand, void> {
  constructor(private readonly writer: EventWriter) {}

  async execute({ name, spec, metadata, unit }: PutClaimCommand): Promise<void> {
    validateClaimName(name);
    const network = spec.network === undefined ? undefined : validateNetwork(spec.network);
    const cluster = spec.cluster === undefined ? DEFAULT_CLUSTER : validateClusterName(spec.cluster);
    await this.writer.decideAndAppend(ClaimAggregate, name, (state) => decidePutClaim(state, name, { network, cluster }), metadata, unit);
  }
}
