import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { MAX_LIMIT } from '../../http/list-query.dto';

export class ListEventsQueryDto {
  @ApiPropertyOptional({ description: 'cursor: the `next` of the previous page' })
  @IsOptional()
  @IsString()
  after?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_LIMIT, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_LIMIT)
  limit: number = 100;

  @ApiPropertyOptional({ example: 'pool-rack-7' })
  @IsOptional()
  @IsString()
  streamId?: string;

  @ApiPropertyOptional({ example: 'IpAllocated' })
  @IsOptional()
  @IsString()
  type?: string;
}
