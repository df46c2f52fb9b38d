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

  @ApiPropertyOptional({
    example: 'shop',
    description: 'a namespace whose pool annotations (as the watcher last sent them) choose the pools, over matchLabel and poolSelector',
    maxLength: LIMITS.shortName,
  })
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.shortName)
  namespace?: string;

  @ApiPropertyOptional({
    example: 'web-1',
    description: "a pod of `namespace` whose pool annotations choose the pools, over its namespace's",
    maxLength: LIMITS.name,
  })
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.name)
  pod?: string;

  @ApiPropertyOptional({
    example: 'storage',
    description: 'the CNI network name, for the `ipam.ipledger.io/networks` annotation',
    maxLength: LIMITS.name,
  })
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.name)
  network?: string;

  @ApiPropertyOptional({ description: 'also list each pool considered and left out, with the reason, and which rule chose the candidates' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  explain?: boolean;
}
