import { PickType } from '@nestjs/swagger';
import { TextOf } from '../../http/limits';
import { OptionalField } from '../../http/optional-field';
import { CreatePoolDto } from './create-pool.dto';

export class UpdatePoolDto extends PickType(CreatePoolDto, [
  'labels',
  'nodeSelector',
  'clusterSelector',
  'disabled',
  'reuseDelaySeconds',
  'allowSpecialRanges',
] as const) {
  @OptionalField()
  @TextOf('address', {
    required: false,
    example: '10.4.0.0/23',
    description:
      'a new CIDR of the same family: one that contains the current one (grow; 409 POOL_OVERLAP when it overlaps another pool), or one inside it when every address outside it is free (shrink; else 409 POOL_IN_USE naming the first address in the way; 409 CIDR_NOT_NESTED when it is neither). Allocations stay as they are.',
  })
  cidr?: string;
}
