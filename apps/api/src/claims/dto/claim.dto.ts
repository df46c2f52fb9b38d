import { ApiProperty } from '@nestjs/swagger';
import { AllocationDto } from '../../allocations/dto/allocation.dto';

export class ClaimReferenceDto {
  @ApiProperty({ example: 'default' }) cluster!: string;
  @ApiProperty({ description: 'the handle (CNI attachment) that carries the claim' }) handle!: string;
  @ApiProperty({ description: "the reference's pod's node" }) node!: string;
  @ApiProperty() namespace!: string;
  @ApiProperty() pod!: string;
  @ApiProperty({ format: 'date-time', description: 'when the reference was taken' }) since!: string;
}

export class ClaimDto {
  @ApiProperty({ example: 'kubevirt:default:vms:db-1' }) name!: string;
  @ApiProperty({ example: 'default', description: 'the cluster it was made in' }) cluster!: string;
  @ApiProperty({ type: String, nullable: true, description: 'the network its addresses are of; null until its first allocation names one' })
  network!: string | null;
  @ApiProperty({ description: 'true: kept without references until deleted; false: freed with its last reference' })
  persistent!: boolean;
  @ApiProperty({ type: [AllocationDto], description: 'its addresses, one a family, held under the handle `@<name>`' })
  items!: AllocationDto[];
  @ApiProperty({ type: [ClaimReferenceDto], description: 'its live references (at most two), oldest first' })
  references!: ClaimReferenceDto[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
}

export class ClaimListDto {
  @ApiProperty({ type: [ClaimDto] }) items!: ClaimDto[];
  @ApiProperty({ type: 'string', nullable: true }) continue!: string | null;
}
