import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsInstant } from '../../http/instant';
import { ListQueryDto } from '../../http/list-query.dto';

export class ListBlocksQueryDto extends ListQueryDto {
  @ApiPropertyOptional({
    example: '2026-11-29T14:02:00Z',
    format: 'date-time',
    description: 'the blocks claimed at this instant, with their counts then, replayed from the log (RFC 3339, no leap seconds)',
  })
  @IsOptional()
  @IsInstant()
  at?: string;
}
