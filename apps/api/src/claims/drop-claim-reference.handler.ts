import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { assertNodeMayDropReference, ClaimAggregate, decideDropReference, DropClaimReferenceCommand, referenceKey } from '@ipledger/domain';
import { EventWriter } from '../infrastructure/event-writer';
import { attempts } from '../infrastructure/unit-of-work';
import { ClaimHoldings } from './claim-holdings';

/**
 * A handle's DELETE drops its claim reference (if it is one): the claim keeps its addresses for
 * its other reference, or while persistent; a transient claim's last reference releases them. A
 * credential bound to a node drops only a reference of its own node.
 */
@CommandHandler(DropClaimReferenceCommand)
export class DropClaimReferenceHandler implements ICommandHandler<DropClaimReferenceCommand, void> {
  constructor(
    private readonly writer: EventWriter,
    private readonly holdings: ClaimHoldings,
  ) {}

  async execute({ handle, claim: name, metadata, unit, restriction, cluster }: DropClaimReferenceCommand): Promise<void> {
    await attempts(unit, async () => {
      const claim = await this.writer.load(ClaimAggregate, name, unit);
      assertNodeMayDropReference(restriction, handle, claim.state.references.get(referenceKey({ cluster, handle })));
      const addresses = await this.holdings.addresses(name);
      await this.holdings.append(
        claim,
        name,
        decideDropReference(claim.state, name, { cluster, handle }, addresses),
        addresses,
        metadata,
        unit,
      );
    });
  }
}
