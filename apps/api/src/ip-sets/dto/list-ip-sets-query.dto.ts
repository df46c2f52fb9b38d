import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { LIMITS } from '../../http/limits';
import { ListQueryDto } from '../../http/list-query.dto';

export class ListIpSetsQueryDto extends ListQueryDto {
  @ApiPropertyOptional({ example: 'shop', description: 'only the sets of this namespace', maxLength: LIMITS.name })
  @IsOptional()
  @IsString()
  @MaxLength(LIMITS.name)
  namespace?: string;
}
