import { Controller, Get, Inject, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Pool } from 'pg';
import { ErrorResponse } from '../http/error-response';
import { PG_POOL } from '../infrastructure/tokens';

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(@Inject(PG_POOL) private readonly db: Pool) {}

  @Get('healthz')
  @ApiOkResponse({ description: 'the process is up' })
  healthz() {
    return { status: 'ok' };
  }

  @Get('readyz')
  @ApiOkResponse({ description: 'the database answers' })
  @ApiServiceUnavailableResponse({ type: ErrorResponse })
  async readyz() {
    try {
      await this.db.query('SELECT 1');
    } catch {
      throw new ServiceUnavailableException({ code: 'UNAVAILABLE', message: 'the database is unreachable' });
    }
    return { status: 'ready', checks: { database: 'ok' } };
  }
}
