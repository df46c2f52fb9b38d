import { PickType } from '@nestjs/swagger';
import { CreatePoolDto } from './create-pool.dto';

export class UpdatePoolDto extends PickType(CreatePoolDto, ['labels', 'nodeSelector', 'disabled'] as const) {}
