import { Module } from '@nestjs/common';
import { AllocateForClaimHandler } from './allocate-for-claim.handler';
import { ClaimHoldings } from './claim-holdings';
import { ClaimsController } from './claims.controller';
import { DeleteClaimHandler } from './delete-claim.handler';
import { DropClaimReferenceHandler } from './drop-claim-reference.handler';
import { PutClaimHandler } from './put-claim.handler';

@Module({
  controllers: [ClaimsController],
  providers: [ClaimHoldings, AllocateForClaimHandler, DropClaimReferenceHandler, PutClaimHandler, DeleteClaimHandler],
})
export class ClaimsModule {}
