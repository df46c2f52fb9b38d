import { DomainError } from '@ipledger/domain';
import { ConcurrencyError } from '@ipledger/event-store';
import { backoffDelayMs } from '@ipledger/runtime';
import { currentRequestContext } from '../http/request-context';
import { isDatabaseUnavailable } from './database-unavailable';

/**
 * Another writer got there first: a stream moved on (expected version) or a read model's unique
 * key caught a concurrent twin (same handle, same address). Both are resolved by deciding again on
 * fresh state, a bounded number of times, with a little jitter so replicas do not collide in step.
 */
export function isConflict(err: unknown): boolean {
  if (err instanceof ConcurrencyError) return true;
  const code = (err as { code?: string }).code;
  const constraint = (err as { constraint?: string }).constraint;
  return code === '23505' && (constraint === 'allocations_pkey' || constraint === 'allocations_ip_unique');
}

/** short: the other writer is done within milliseconds, and the caller waits */
const CONFLICT_BACKOFF = { baseMs: 4, maxMs: 100 };

/**
 * A failover takes seconds (Patroni: the leader key's TTL, then a promotion), and the pool's next
 * connections find the new primary; a database down for longer is answered 503 rather than waited on.
 */
const FAILOVER_BACKOFF = { baseMs: 100, maxMs: 1_000 };
const FAILOVER_WAIT_MS = 10_000;

export async function retryOnConflict<T>(work: (attempt: number) => Promise<T>, attempts = 20): Promise<T> {
  let unavailable = 0;
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (err) {
      if (Date.now() - started < FAILOVER_WAIT_MS && whileRequestLasts(err)) {
        // the work decides again on a fresh connection: an append that did commit before its
        // connection broke is then found (its expected version moved) and answered as a repeat
        await new Promise((resolve) => setTimeout(resolve, backoffDelayMs(++unavailable, FAILOVER_BACKOFF)));
        attempt--;
        continue;
      }
      if (!isConflict(err)) throw err;
      if (attempt >= attempts) {
        throw new DomainError(
          'CONCURRENCY_CONFLICT',
          `gave up after ${attempts} attempts: too many concurrent writers on the same objects; retry`,
        );
      }
      await conflictPause(attempt);
    }
  }
}

/**
 * A database lost mid-request (a failover, a restart) is waited out within the request's deadline,
 * which answers 503 when it passes; work outside a request (the Kubernetes consumer) is redelivered instead.
 */
function whileRequestLasts(err: unknown): boolean {
  const signal = currentRequestContext()?.signal;
  return signal !== undefined && !signal.aborted && isDatabaseUnavailable(err);
}

/** A short jittered wait that grows with the attempt, so replicas that collided do not collide again in step. */
export function conflictPause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, backoffDelayMs(attempt, CONFLICT_BACKOFF)));
}
