import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_ORDINALS_START, MAX_REPLICAS } from '@ipledger/domain';
import { IsInt, IsString, MaxLength } from 'class-validator';
import { LIMITS } from '../../http/limits';
import { Optional } from '../../http/optional';

export class PutStatefulSetDto {
  @ApiProperty({ example: 3, minimum: 0, maximum: MAX_REPLICAS, description: 'the StatefulSet spec.replicas' })
  @IsInt()
  replicas!: number;

  @ApiPropertyOptional({
    default: 0,
    minimum: 0,
    maximum: MAX_ORDINALS_START,
    description: 'spec.ordinals.start: the ordinal of the first pod',
  })
  @Optional()
  @IsInt()
  ordinalsStart?: number;

  @ApiPropertyOptional({ example: 'rack-7', description: 'the pool to reserve in', maxLength: LIMITS.shortName })
  @Optional()
  @IsString()
  @MaxLength(LIMITS.shortName)
  pool?: string;

  @ApiPropertyOptional({ example: 'tier=gold', description: 'Kubernetes label selector over pool labels', maxLength: LIMITS.selector })
  @Optional()
  @IsString()
  @MaxLength(LIMITS.selector)
  poolSelector?: string;

  @ApiPropertyOptional({
    example: 'pool-group',
    description: "pools whose value for this label equals the node's (needs node)",
    maxLength: LIMITS.labelKey,
  })
  @Optional()
  @IsString()
  @MaxLength(LIMITS.labelKey)
  matchLabel?: string;

  @ApiPropertyOptional({
    example: 'worker-1',
    description: "the node whose labels matchLabel and pools' nodeSelectors are matched against",
    maxLength: LIMITS.name,
  })
  @Optional()
  @IsString()
  @MaxLength(LIMITS.name)
  node?: string;
}
