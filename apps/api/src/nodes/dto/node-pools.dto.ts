import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { SELECTION_SOURCES, type SelectionSource } from '@ipledger/domain';
import { PoolDto } from '../../pools/dto/pool.dto';

export class ExclusionDto {
  @ApiProperty() pool!: string;
  @ApiProperty({ example: 'nodeSelector "zone=b" does not match the node\'s labels' }) reason!: string;
}

export class NodePoolsDto {
  @ApiProperty({ type: [PoolDto], description: 'eligible pools, in the order allocation tries them' }) items!: PoolDto[];
  @ApiPropertyOptional({ type: [ExclusionDto], description: 'with explain=true' }) excluded?: ExclusionDto[];
  @ApiPropertyOptional({
    enum: SELECTION_SOURCES,
    description:
      "with explain=true: which rule chose the candidates (the pod's annotation, its namespace's, the request's, the server default)",
  })
  chosenBy?: SelectionSource;
}
