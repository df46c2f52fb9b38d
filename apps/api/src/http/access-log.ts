import type { FastifyInstance } from 'fastify';
import type { AppLogger } from '../infrastructure/app-logger';
import type { ContextualRequest } from './request-context';

/** One line per answered request: who asked what, the answer's status and how long it took. */
export function logRequests(fastify: FastifyInstance, logger: AppLogger): void {
  fastify.addHook('onResponse', (req, reply, done) => {
    const { context } = req as ContextualRequest;
    logger.line('info', 'request completed', {
      context: 'http',
      requestId: context?.requestId,
      actor: context?.actor,
      method: req.method,
      path: req.url,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime),
    });
    done();
  });
}
