import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Pool } from 'pg';
import { ClusterPresence } from '../clusters/cluster-presence';
import { ApiRoute } from '../http/api-route';
import { ClusterPrefixParams } from '../http/path-params.dto';
import { RouteCluster } from '../http/request-context';
import { PG_POOL } from '../infrastructure/tokens';
import { checkCluster } from './cluster-check';
import { CheckReportDto } from './dto/check-report.dto';

/** Whether a cluster and its allocations agree, as `ipledger check --cluster` reports it. */
@ApiTags('check')
@Controller(['v1', 'v1/clusters/:cluster'])
export class CheckController {
  constructor(
    @Inject(PG_POOL) private readonly db: Pool,
    private readonly clusters: ClusterPresence,
  ) {}

  @Get('check')
  @ApiOkResponse({ type: CheckReportDto })
  @ApiRoute('reader', "Compare one cluster's allocations with its last complete pod sync; each problem with its evidence", 400, 404)
  async check(@Param() _: ClusterPrefixParams, @RouteCluster() cluster: string): Promise<CheckReportDto> {
    return checkCluster(this.db, await this.clusters.forRead(cluster));
  }
}
