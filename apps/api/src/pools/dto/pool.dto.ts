import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class StatefulSetRangeDto {
  @ApiProperty({ example: 'default', description: 'the cluster of the StatefulSet or ip-set workload' }) cluster!: string;
  @ApiProperty() namespace!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ example: '10.4.0.10' }) start!: string;
  @ApiProperty({ example: '10.4.0.14' }) end!: string;
}

export class PoolDto {
  @ApiProperty() name!: string;
  @ApiProperty({ example: '10.4.0.0/24' }) cidr!: string;
  @ApiProperty({ enum: [4, 6] }) family!: 4 | 6;
  @ApiProperty({ type: String, nullable: true, example: '10.4.0.1', description: 'never handed out; named in every allocation' })
  gateway!: string | null;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) labels!: Record<string, string>;
  @ApiProperty({ type: String, nullable: true }) nodeSelector!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'region=east',
    description: 'the clusters that may allocate from the pool, by their labels; null: every cluster',
  })
  clusterSelector!: string | null;
  @ApiProperty({ type: [String] }) reserved!: string[];
  @ApiProperty() disabled!: boolean;
  @ApiProperty({ example: 0, description: 'seconds a released address is kept from new holders while others are free' })
  reuseDelaySeconds!: number;
  @ApiProperty({ description: 'the CIDR may lie in or over a special range (loopback, multicast, IPv4-mapped, ...)' })
  allowSpecialRanges!: boolean;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'blue',
    description: 'the isolated network whose address space the pool is in; null: the shared space',
  })
  network!: string | null;
  @ApiProperty({ example: '254', description: 'addresses that can ever be handed out (decimal string)' }) capacity!: string;
  @ApiProperty({ example: '3', description: 'addresses held by a handle (decimal string)' }) allocated!: string;
  @ApiProperty({ example: '5', description: 'addresses held back without a handle (decimal string)' }) reservedCount!: string;
  @ApiProperty({ example: '2', description: 'of reservedCount, the StatefulSet range addresses no pod holds now (decimal string)' })
  rangeReservedCount!: string;
  @ApiProperty({ type: [StatefulSetRangeDto], description: 'the StatefulSet ranges inside the pool, by start address' })
  statefulSetRanges!: StatefulSetRangeDto[];
  @ApiProperty({ example: '246', description: 'capacity - allocated - reservedCount (decimal string)' }) free!: string;
  @ApiPropertyOptional({ type: 'integer', example: 26, description: 'present when the pool is handed to nodes in blocks' })
  blockSize?: number;
  @ApiPropertyOptional({ enum: ['strict', 'borrow'] }) blockAffinity?: 'strict' | 'borrow';
  @ApiPropertyOptional({ type: 'integer', example: 300 }) blockReleaseSeconds?: number;
  @ApiProperty() version!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class PoolListDto {
  @ApiProperty({ type: [PoolDto] }) items!: PoolDto[];
  @ApiProperty({ type: String, nullable: true }) continue!: string | null;
}
