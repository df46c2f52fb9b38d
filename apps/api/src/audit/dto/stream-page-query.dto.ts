import { ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ListQueryDto } from '../../http/list-query.dto';

export class StreamPageQueryDto extends PickType(ListQueryDto, ['limit'] as const) {
  @ApiPropertyOptional({
    type: 'integer',
    description: 'cursor: the `next` of the previous page (a stream version)',
    minimum: 0,
    // events.version is an integer column
    maximum: 2147483647,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(2147483647)
  after?: number;
}
