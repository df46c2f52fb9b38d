import { ApiPropertyOptional, PickType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Min } from 'class-validator';
import { ListQueryDto } from '../../http/list-query.dto';

export class StreamPageQueryDto extends PickType(ListQueryDto, ['limit'] as const) {
  @ApiPropertyOptional({ description: 'cursor: the `next` of the previous page (a stream version)' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  after?: number;
}
