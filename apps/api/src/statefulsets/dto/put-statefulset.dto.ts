import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MAX_ORDINALS_START, MAX_REPLICAS } from '@ipledger/domain';
import { IsInt } from 'class-validator';
import { TextOf } from '../../http/limits';
import { OptionalField } from '../../http/optional-field';

export class PutStatefulSetDto {
  @ApiProperty({ example: 3, minimum: 0, maximum: MAX_REPLICAS, description: 'the StatefulSet spec.replicas' })
  @IsInt()
  replicas!: number;

  @ApiPropertyOptional({
    default: 0,
    minimum: 0,
    maximum: MAX_ORDINALS_START,
    description:
      "spec.ordinals.start: the ordinal of the first pod; the last pod's, ordinalsStart + replicas - 1, is at most 2147483647 too",
  })
  @OptionalField()
  @IsInt()
  ordinalsStart?: number;

  @OptionalField()
  @TextOf('poolName', { required: false, example: 'rack-7', description: 'the pool to reserve in' })
  pool?: string;

  @OptionalField()
  @TextOf('selector', { required: false, example: 'tier=gold', description: 'Kubernetes label selector over pool labels' })
  poolSelector?: string;

  @OptionalField()
  @TextOf('labelKey', {
    required: false,
    example: 'pool-group',
    description: "pools whose value for this label equals the node's (needs node)",
  })
  matchLabel?: string;

  @OptionalField()
  @TextOf('nodeName', {
    required: false,
    example: 'worker-1',
    description: "the node whose labels matchLabel and pools' nodeSelectors are matched against",
  })
  node?: string;
}
