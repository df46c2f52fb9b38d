import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { IsInstant } from '../../http/instant';
import { ListQueryDto } from '../../http/list-query.dto';

export class ListAllocationsQueryDto extends ListQueryDto {
  @ApiPropertyOptional() @IsOptional() @IsString() pool?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() node?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() namespace?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() pod?: string;

  @ApiPropertyOptional({ example: '2026-11-29T14:02:00Z', description: 'as it was then, replayed from the log (needs pool)' })
  @IsOptional()
  @IsInstant()
  at?: string;
}
