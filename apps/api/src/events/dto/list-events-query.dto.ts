import { PickType } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { TextOf } from '../../http/limits';
import { ListQueryDto } from '../../http/list-query.dto';

/** The log pages by its own cursor (`after`), not by `continue`. */
export class ListEventsQueryDto extends PickType(ListQueryDto, ['limit'] as const) {
  @IsOptional()
  @TextOf('token', { required: false, description: 'cursor: the `next` of the previous page' })
  after?: string;

  @IsOptional()
  @TextOf('streamId', { required: false, example: 'pool-rack-7' })
  streamId?: string;

  @IsOptional()
  @TextOf('eventType', { required: false, example: 'IpAllocated' })
  type?: string;
}
