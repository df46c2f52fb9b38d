import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString } from 'class-validator';

export class NodePoolsQueryDto {
  @ApiPropertyOptional({ example: 'pool-group', description: "pools whose value for this label key equals the node's" })
  @IsOptional()
  @IsString()
  matchLabel?: string;

  @ApiPropertyOptional({ example: 'tier in (gold,silver)' })
  @IsOptional()
  @IsString()
  poolSelector?: string;

  @ApiPropertyOptional({ description: 'also list each pool considered and left out, with the reason' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  explain?: boolean;
}
