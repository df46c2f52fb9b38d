import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { LIMITS } from './limits';

export const MAX_LIMIT = 1000;

export class ListQueryDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_LIMIT)
  limit: number = 100;

  @ApiPropertyOptional({ description: 'opaque token from the previous page', maxLength: LIMITS.token })
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.token)
  continue?: string;
}
