import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { toErrorResponse } from './error-mapping';

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('http');

  catch(err: unknown, host: ArgumentsHost): void {
    const body = toErrorResponse(err);
    // a dependency away (503) is an outage to notice, not a bug to debug: one line, no stack
    if (body.statusCode === 503) this.logger.warn(`${body.code}: ${err instanceof Error ? err.message : String(err)}`);
    else if (body.statusCode >= 500) this.logger.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    void host.switchToHttp().getResponse<FastifyReply>().status(body.statusCode).send(body);
  }
}
