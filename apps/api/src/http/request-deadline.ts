import type { FastifyReply } from 'fastify';
import { answerError } from './all-exceptions.filter';
import { RequestTimeoutError } from './request-timeout.error';

/**
 * The abort signal of each request: it fires when the client goes away before the answer, or when
 * the request runs past `ms` (0: never), which is then answered 503 UNAVAILABLE at once. The pg
 * pool cancels the request's running query on it; what the handler does after is not answered.
 */
export function requestDeadline(ms: number): (reply: FastifyReply) => AbortSignal {
  return (reply) => {
    const controller = new AbortController();
    const res = reply.raw;
    const timer =
      ms > 0
        ? setTimeout(() => {
            const timedOut = new RequestTimeoutError(ms);
            controller.abort(timedOut);
            if (!reply.sent) answerError(reply, timedOut);
          }, ms)
        : undefined;
    res.once('close', () => {
      clearTimeout(timer);
      if (!res.writableFinished) controller.abort(new Error('the client closed the connection'));
    });
    return controller.signal;
  };
}
