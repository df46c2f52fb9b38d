import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsInstant } from '../../http/instant';
import { TextOf } from '../../http/limits';
import { ListQueryDto } from '../../http/list-query.dto';

export class ListAllocationsQueryDto extends ListQueryDto {
  @IsOptional()
  @TextOf('cluster', { required: false, description: "one cluster's allocations; without it, every cluster's (a fleet-wide token's)" })
  cluster?: string;
  @IsOptional() @TextOf('poolName', { required: false }) pool?: string;
  @IsOptional() @TextOf('nodeName', { required: false }) node?: string;
  @IsOptional() @TextOf('namespace', { required: false }) namespace?: string;
  @IsOptional() @TextOf('podName', { required: false }) pod?: string;
  @IsOptional()
  @TextOf('network', { required: false, description: 'the CNI network the allocations were made through' })
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
