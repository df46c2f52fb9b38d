import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class IpSetOwnerDto {
  @ApiProperty({ enum: ['Deployment', 'ReplicaSet'] }) kind!: string;
  @ApiProperty({ example: 'web' }) name!: string;
}

export class IpHistoryItemDto {
  @ApiProperty({
    enum: ['IpAllocated', 'IpReleased', 'RangeReserved', 'ClaimReferenceAdded', 'ClaimReferenceDropped'],
    description: "Claim…: a claim's reference (handle, node, namespace, pod) taken or dropped on the address",
  })
  type!: string;
  @ApiProperty({ type: String, nullable: true }) handle!: string | null;
  @ApiProperty() pool!: string;
  @ApiProperty({ type: String, nullable: true, example: 'blue', description: "the pool's isolated network; null: the shared space" })
  network!: string | null;
  @ApiProperty({ type: String, nullable: true }) node!: string | null;
  @ApiProperty({ type: String, nullable: true }) namespace!: string | null;
  @ApiProperty({ type: String, nullable: true }) pod!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'for RangeReserved: the StatefulSet the range is for' }) statefulSet!:
    | string
    | null;
  @ApiProperty({
    type: IpSetOwnerDto,
    nullable: true,
    description: 'for RangeReserved: the workload whose ip-set the range is, in `namespace`',
  })
  ipSet!: IpSetOwnerDto | null;
  @ApiProperty({
    example: 'default',
    description:
      "the cluster of the handle (for Claim…: the reference's), or of the StatefulSet or ip-set; `default` for everything before clusters",
  })
  cluster!: string;
  @ApiPropertyOptional({ description: 'for Claim…: the claim' }) claim?: string;
  @ApiProperty({ format: 'date-time' }) at!: string;
  @ApiProperty({ type: String, nullable: true, description: 'who caused it (token name, or watcher)' }) actor!: string | null;
}

export class IpHistoryDto {
  @ApiProperty({ type: [IpHistoryItemDto], description: 'oldest first' }) items!: IpHistoryItemDto[];
  @ApiProperty({ type: String, nullable: true, description: 'token for the following page; null on the last' }) continue!: string | null;
}
