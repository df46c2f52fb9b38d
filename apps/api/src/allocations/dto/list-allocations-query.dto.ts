import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsInstant } from '../../http/instant';
import { LIMITS } from '../../http/limits';
import { ListQueryDto } from '../../http/list-query.dto';

export class ListAllocationsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ maxLength: LIMITS.shortName }) @IsOptional() @IsString() @MaxLength(LIMITS.shortName) pool?: string;
  @ApiPropertyOptional({ maxLength: LIMITS.name }) @IsOptional() @IsString() @MaxLength(LIMITS.name) node?: string;
  @ApiPropertyOptional({ maxLength: LIMITS.shortName }) @IsOptional() @IsString() @MaxLength(LIMITS.shortName) namespace?: string;
  @ApiPropertyOptional({ maxLength: LIMITS.name }) @IsOptional() @IsString() @MaxLength(LIMITS.name) pod?: string;
  @ApiPropertyOptional({ maxLength: LIMITS.name, description: 'the CNI network the allocations were made through' })
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.name)
  network?: string;

  @ApiPropertyOptional({
    example: '2026-11-29T14:02:00Z',
    format: 'date-time',
    description: 'as it was then, replayed from the log (needs pool); RFC 3339, no leap seconds',
  })
  @IsOptional()
  @IsInstant()
  at?: string;
}
