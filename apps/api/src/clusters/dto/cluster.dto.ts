import { ApiProperty } from '@nestjs/swagger';

export class ClusterDto {
  @ApiProperty({ example: 'east' }) name!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { region: 'eu-west' } }) labels!: Record<
    string,
    string
  >;
  @ApiProperty({ description: '0 for `default` before its labels were set' }) version!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class ClusterListDto {
  @ApiProperty({ type: [ClusterDto] }) items!: ClusterDto[];
  @ApiProperty({ type: 'string', nullable: true }) continue!: string | null;
}
