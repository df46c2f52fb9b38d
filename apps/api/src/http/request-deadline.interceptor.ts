import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Observable, TimeoutError, catchError, throwError, timeout } from 'rxjs';
import type { Config } from '../config';
import { requestSignal } from '../infrastructure/request-signal';
import { CONFIG } from '../infrastructure/tokens';

/** A request that ran past IPAM_REQUEST_TIMEOUT_MS: answered 503 UNAVAILABLE, its query cancelled. */
export class RequestTimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`the request did not finish within ${ms} ms; retry later`);
    this.name = 'RequestTimeoutError';
  }
}

/**
 * Gives each request an abort signal, run through the handler (requestSignal), that fires when
 * the client goes away before the answer or when the request times out; the pg pool cancels the
 * request's running query on it.
 */
@Injectable()
export class RequestDeadlineInterceptor implements NestInterceptor {
  constructor(@Inject(CONFIG) private readonly config: Config) {}

  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    const res = ctx.switchToHttp().getResponse<FastifyReply>().raw;
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort(new Error('the client closed the connection'));
    });
    const ms = this.config.requestTimeoutMs;
    const handled = new Observable<unknown>((subscriber) =>
      requestSignal.run(controller.signal, () => next.handle().subscribe(subscriber)),
    );
    if (ms === 0) return handled;
    return handled.pipe(
      timeout(ms),
      catchError((err: unknown) => {
        if (!(err instanceof TimeoutError)) return throwError(() => err);
        const timedOut = new RequestTimeoutError(ms);
        controller.abort(timedOut);
        return throwError(() => timedOut);
      }),
    );
  }
}
