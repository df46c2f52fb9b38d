import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ClaimAggregate, decideDeleteClaim, DeleteClaimCommand, validateClaimName } from '@ipledger/domain';
import { EventWriter } from '../infrastructure/event-writer';
import { attempts } from '../infrastructure/unit-of-work';
import { ClaimHoldings } from './claim-holdings';

/** Deletes a claim, transient or persistent: its references are dropped and its addresses released, in one transaction. */
@CommandHandler(DeleteClaimCommand)
export class DeleteClaimHandler implements ICommandHandler<DeleteClaimCommand, void> {
  constructor(
    private readonly writer: EventWriter,
    private readonly holdings: ClaimHoldings,
  ) {}

  async execute({ name, metadata, unit }: DeleteClaimCommand): Promise<void> {
    validateClaimName(name);
    await attempts(unit, async () => {
      const claim = await this.writer.load(ClaimAggregate, name, unit);
      const addresses = await this.holdings.addresses(name);
      await this.holdings.append(claim, name, decideDeleteClaim(claim.state, name, addresses), addresses, metadata, unit);
    });
  }
}
