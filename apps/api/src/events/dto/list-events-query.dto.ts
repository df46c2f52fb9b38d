import { ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { LIMITS } from '../../http/limits';
import { ListQueryDto } from '../../http/list-query.dto';

/** The log pages by its own cursor (`after`), not by `continue`. */
export class ListEventsQueryDto extends PickType(ListQueryDto, ['limit'] as const) {
  @ApiPropertyOptional({ description: 'cursor: the `next` of the previous page', maxLength: LIMITS.token })
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.token)
  after?: string;

  @ApiPropertyOptional({ example: 'pool-rack-7', maxLength: LIMITS.streamId })
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.streamId)
  streamId?: string;

  @ApiPropertyOptional({ example: 'IpAllocated', maxLength: LIMITS.eventType })
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.eventType)
  type?: string;
}
