import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsRFC3339, IsString } from 'class-validator';
import { ListQueryDto } from '../../http/list-query.dto';

export class ListAllocationsQueryDto extends ListQueryDto {
  @ApiPropertyOptional() @IsOptional() @IsString() pool?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() node?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() namespace?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() pod?: string;
  @ApiPropertyOptional({ description: 'the CNI network the allocations were made through' }) @IsOptional() @IsString() network?: string;

  @ApiPropertyOptional({ example: '2026-11-29T14:02:00Z', description: 'as it was then, replayed from the log (needs pool)' })
  @IsOptional()
  @IsRFC3339()
  at?: string;
}
