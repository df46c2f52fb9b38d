import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ALLOCATION_OWNERS, type AllocationOwner } from '@ipledger/domain';

export class StatefulSetRefDto {
  @ApiProperty() namespace!: string;
  @ApiProperty() name!: string;
  @ApiProperty() ordinal!: number;
}

export class AllocationDto {
  @ApiProperty() handle!: string;
  @ApiProperty({ example: '10.4.0.17' }) ip!: string;
  @ApiProperty({ example: 24 }) prefixLength!: number;
  @ApiProperty({ example: '10.4.0.0/24' }) cidr!: string;
  @ApiProperty() pool!: string;
  @ApiPropertyOptional({ example: '10.4.0.1', description: "the pool's gateway, when it has one" }) gateway?: string;
  @ApiProperty() node!: string;
  @ApiProperty() namespace!: string;
  @ApiProperty() pod!: string;
  @ApiPropertyOptional({ type: String, nullable: true }) podUid!: string | null;
  @ApiProperty({
    enum: ALLOCATION_OWNERS,
    description: 'pod: released when the pod is deleted or vanishes (leak collection); external: only by an explicit release',
  })
  owner!: AllocationOwner;
  @ApiProperty({ enum: [4, 6] }) family!: 4 | 6;
  @ApiPropertyOptional({ type: StatefulSetRefDto, description: "the StatefulSet whose pod holds it, and the pod's ordinal" })
  statefulSet?: StatefulSetRefDto;
  @ApiPropertyOptional({ example: 'k8s-pod-network', description: 'the CNI network (config `name`) it was allocated through' })
  network?: string;
  @ApiProperty({ format: 'date-time' }) allocatedAt!: string;
}

export class AllocationItemsDto {
  @ApiProperty({ type: [AllocationDto] }) items!: AllocationDto[];
}

export class AllocationListDto extends AllocationItemsDto {
  @ApiProperty({ type: String, nullable: true }) continue!: string | null;
}
