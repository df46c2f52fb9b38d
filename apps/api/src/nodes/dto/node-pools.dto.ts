import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PoolDto } from '../../pools/dto/pool.dto';

export class ExclusionDto {
  @ApiProperty() pool!: string;
  @ApiProperty({ example: 'nodeSelector "zone=b" does not match the node\'s labels' }) reason!: string;
}

export class NodePoolsDto {
  @ApiProperty({ type: [PoolDto], description: 'eligible pools, in the order allocation tries them' }) items!: PoolDto[];
  @ApiPropertyOptional({ type: [ExclusionDto], description: 'with explain=true' }) excluded?: ExclusionDto[];
}
