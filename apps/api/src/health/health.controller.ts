import { Controller, Get, HttpStatus, Query, Res, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiQuery, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ErrorResponse } from '../http/error-response';
import { ApiPublicRoute } from '../http/api-route';
import { Readiness } from './readiness';

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(private readonly readiness: Readiness) {}

  @Get('healthz')
  @ApiOkResponse({ description: 'the process is up' })
  @ApiPublicRoute('Liveness: the process is up')
  healthz() {
    return { status: 'ok' };
  }

  /**
   * Ready when what REST allocation needs answers: the database, at this release's schema. With
   * `?verbose` every check is reported, those that do not decide readiness too (the Kubernetes
   * consumer's bus): `{status, checks: {<name>: {status, required, message?}}}`, 200 or 503.
   */
  @Get('readyz')
  @ApiQuery({
    name: 'verbose',
    required: false,
    allowEmptyValue: true,
    description: 'report every check (the Kubernetes consumer too), each {status: ok|failed|off, required, message?}',
  })
  @ApiOkResponse({ description: 'the database answers and its schema is current' })
  @ApiServiceUnavailableResponse({ type: ErrorResponse })
  @ApiPublicRoute('Readiness: the database answers at the current schema; ?verbose reports every check', 503)
  async readyz(@Query('verbose') verbose: string | undefined, @Res({ passthrough: true }) reply: FastifyReply) {
    const report = await this.readiness.report();
    const status = report.ready ? 'ready' : 'not ready';
    if (verbose !== undefined) {
      if (!report.ready) reply.status(HttpStatus.SERVICE_UNAVAILABLE);
      return { status, checks: report.checks };
    }
    const required = Object.entries(report.checks).filter(([, outcome]) => outcome.required);
    const failed = required.filter(([, outcome]) => outcome.status !== 'ok');
    if (failed.length)
      throw new ServiceUnavailableException({ code: 'UNAVAILABLE', message: failed.map(([, outcome]) => outcome.message).join('; ') });
    return { status, checks: Object.fromEntries(required.map(([name, outcome]) => [name, outcome.status])) };
  }
}
