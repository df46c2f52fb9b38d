import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString } from 'class-validator';
import { Optional } from '../../http/optional';

export class PutStatefulSetDto {
  @ApiProperty({ example: 3, minimum: 0, description: 'the StatefulSet spec.replicas' })
  @IsInt()
  replicas!: number;

  @ApiPropertyOptional({ default: 0, minimum: 0, description: 'spec.ordinals.start: the ordinal of the first pod' })
  @Optional()
  @IsInt()
  ordinalsStart?: number;

  @ApiPropertyOptional({ example: 'rack-7', description: 'the pool to reserve in' })
  @Optional()
  @IsString()
  pool?: string;

  @ApiPropertyOptional({ example: 'tier=gold', description: 'Kubernetes label selector over pool labels' })
  @Optional()
  @IsString()
  poolSelector?: string;

  @ApiPropertyOptional({ example: 'pool-group', description: "pools whose value for this label equals the node's (needs node)" })
  @Optional()
  @IsString()
  matchLabel?: string;

  @ApiPropertyOptional({
    example: 'worker-1',
    description: "the node whose labels matchLabel and pools' nodeSelectors are matched against",
  })
  @Optional()
  @IsString()
  node?: string;
}
