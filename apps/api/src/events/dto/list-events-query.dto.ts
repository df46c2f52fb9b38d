import { ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { ListQueryDto } from '../../http/list-query.dto';

/** The log pages by its own cursor (`after`), not by `continue`. */
export class ListEventsQueryDto extends PickType(ListQueryDto, ['limit'] as const) {
  @ApiPropertyOptional({ description: 'cursor: the `next` of the previous page' })
  @IsOptional()
  @IsString()
  after?: string;

  @ApiPropertyOptional({ example: 'pool-rack-7' })
  @IsOptional()
  @IsString()
  streamId?: string;

  @ApiPropertyOptional({ example: 'IpAllocated' })
  @IsOptional()
  @IsString()
  type?: string;
}
