import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { errorHeaders, toErrorResponse } from './error-mapping';

const logger = new Logger('http');

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  catch(err: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    // already answered (the request's deadline): what its handler met after that is nobody's answer
    if (!reply.sent) answerError(reply, err);
  }
}

/** The error's answer (error-mapping), and a log line for what an operator should see. */
export function answerError(reply: FastifyReply, err: unknown): void {
  const body = toErrorResponse(err);
  // a dependency away (503) is an outage to notice, not a bug to debug: one line, no stack
  if (body.statusCode === 503) logger.warn(`${body.code}: ${err instanceof Error ? err.message : String(err)}`);
  else if (body.statusCode >= 500) logger.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  void reply.status(body.statusCode).headers(errorHeaders(err)).send(body);
}
