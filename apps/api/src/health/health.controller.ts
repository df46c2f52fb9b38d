import { Controller, Get, Inject, Optional, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Pool } from 'pg';
import { ErrorResponse } from '../http/error-response';
import { PG_POOL } from '../infrastructure/tokens';
import { BusConnection } from '../kubernetes/bus-connection';
import { ApiPublicRoute } from '../http/api-route';

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(
    @Inject(PG_POOL) private readonly db: Pool,
    /** absent with IPAM_KUBERNETES_CONSUMER=off: the bus is then not this API's business */
    @Optional() private readonly bus?: BusConnection,
  ) {}

  @Get('healthz')
  @ApiOkResponse({ description: 'the process is up' })
  @ApiPublicRoute('Liveness: the process is up')
  healthz() {
    return { status: 'ok' };
  }

  @Get('readyz')
  @ApiOkResponse({ description: 'the database and the bus answer' })
  @ApiServiceUnavailableResponse({ type: ErrorResponse })
  @ApiPublicRoute('Readiness: the database (and the bus when consuming) answer', 503)
  async readyz() {
    const database = await this.db.query('SELECT 1').then(
      () => true,
      () => false,
    );
    const bus = this.bus ? await this.bus.isReachable() : null;
    const down = [...(database ? [] : ['the database']), ...(bus === false ? ['the NATS bus'] : [])];
    if (down.length)
      throw new ServiceUnavailableException({
        code: 'UNAVAILABLE',
        message: `${down.join(' and ')} ${down.length > 1 ? 'are' : 'is'} unreachable`,
      });
    return { status: 'ready', checks: { database: 'ok', ...(bus ? { bus: 'ok' } : {}) } };
  }
}
