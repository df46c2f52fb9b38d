import { Logger } from '@nestjs/common';
import { Pool, type PoolClient } from 'pg';
import { currentRequestContext } from './current-request';

/**
 * A pg Pool whose one-shot queries, run for an HTTP request, are cancelled in PostgreSQL
 * (pg_cancel_backend) when that request's signal fires: a client that gave up, or a request past
 * its timeout, no longer holds a database core. Transactions (pool.connect()) are bounded by
 * statement_timeout instead.
 */
export class CancellablePool extends Pool {
  private readonly logger = new Logger('postgres');

  // pg's query() has many overloads; this one forwards them all unchanged
  override query(...args: unknown[]): never {
    const signal = currentRequestContext()?.signal;
    const superQuery = super.query.bind(this) as (...a: unknown[]) => never;
    if (!signal || typeof args.at(-1) === 'function') return superQuery(...args);
    return this.queryUntilAborted(signal, args, superQuery) as never;
  }

  private async queryUntilAborted(signal: AbortSignal, args: unknown[], superQuery: (...a: unknown[]) => never): Promise<unknown> {
    signal.throwIfAborted();
    const client: PoolClient = await this.connect();
    const pid = (client as unknown as { processID: number }).processID;
    const cancel = () => {
      // through the pool, not the busy client: pg_cancel_backend interrupts only this backend's statement
      (superQuery('SELECT pg_cancel_backend($1)', [pid]) as Promise<unknown>).catch((err: Error) =>
        this.logger.warn(`could not cancel backend ${pid}: ${err.message}`),
      );
    };
    signal.addEventListener('abort', cancel, { once: true });
    try {
      return await (client.query as (...a: unknown[]) => Promise<unknown>).apply(client, args);
    } finally {
      signal.removeEventListener('abort', cancel);
      client.release();
    }
  }
}
