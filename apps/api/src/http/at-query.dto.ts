import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsRFC3339 } from 'class-validator';

export class AtQueryDto {
  @ApiPropertyOptional({
    example: '2026-11-29T14:02:00Z',
    description: 'as it was at this instant, replayed from the event log (RFC 3339)',
  })
  @IsOptional()
  @IsRFC3339()
  at?: string;
}
