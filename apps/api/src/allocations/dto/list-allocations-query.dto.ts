import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString } from 'class-validator';
import { ListQueryDto } from '../../http/list-query.dto';

export class ListAllocationsQueryDto extends ListQueryDto {
  @ApiPropertyOptional() @IsOptional() @IsString() pool?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() node?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() namespace?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() pod?: string;
}
