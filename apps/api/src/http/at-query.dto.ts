import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsInstant } from './instant';

export class AtQueryDto {
  @ApiPropertyOptional({
    example: '2026-11-29T14:02:00Z',
    format: 'date-time',
    description: 'as it was at this instant, replayed from the event log (RFC 3339, no leap seconds)',
  })
  @IsOptional()
  @IsInstant()
  at?: string;
}
