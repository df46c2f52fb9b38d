import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { LIMITS } from '../../http/limits';

export class NodePoolsQueryDto {
  @ApiPropertyOptional({
    example: 'pool-group',
    description: "pools whose value for this label key equals the node's",
    maxLength: LIMITS.labelKey,
  })
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.labelKey)
  matchLabel?: string;

  @ApiPropertyOptional({ example: 'tier in (gold,silver)', maxLength: LIMITS.selector })
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.selector)
  poolSelector?: string;

  @ApiPropertyOptional({ description: 'also list each pool considered and left out, with the reason' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  explain?: boolean;
}
