import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Pool } from 'pg';
import { ApiRoute } from '../http/api-route';
import { PG_POOL } from '../infrastructure/tokens';
import { checkCluster } from './cluster-check';
import { CheckReportDto } from './dto/check-report.dto';

/** Whether the cluster and the allocations agree, as `ipledger check` reports it. */
@ApiTags('check')
@Controller('v1')
export class CheckController {
  constructor(@Inject(PG_POOL) private readonly db: Pool) {}

  @Get('check')
  @ApiOkResponse({ type: CheckReportDto })
  @ApiRoute('reader', 'Compare the allocations with the last complete pod sync; each problem with its evidence')
  check(): Promise<CheckReportDto> {
    return checkCluster(this.db);
  }
}
