import { AsyncLocalStorage } from 'node:async_hooks';
import { DomainError } from '@ipledger/domain';
import { ConcurrencyError } from '@ipledger/event-store';
import { backoffDelayMs } from '@ipledger/runtime';
import { currentRequestContext } from './current-request';
import { isDatabaseUnavailable } from './database-unavailable';

/**
 * Another writer got there first: a stream moved on (expected version) or a read model's unique
 * key caught a concurrent twin (same handle, same address). Both are resolved by deciding again on
 * fresh state, a bounded number of times, with a little jitter so replicas do not collide in step.
 */
export function isConflict(err: unknown): boolean {
  if (err instanceof ConcurrencyError) return true;
  if (err instanceof DomainError) return err.code === 'CONCURRENCY_CONFLICT';
  const code = (err as { code?: string }).code;
  const constraint = (err as { constraint?: string }).constraint;
  return code === '23505' && (constraint === 'allocations_pkey' || constraint === 'allocations_ip_unique');
}

/** short: the other writer is done within milliseconds, and the caller waits */
const CONFLICT_BACKOFF = { baseMs: 4, maxMs: 100 };

const ATTEMPTS = 20;

/**
 * A failover takes seconds (Patroni: the leader key's TTL, then a promotion), and the pool's next
 * connections find the new primary; a database down for longer is answered 503 rather than waited on.
 */
const FAILOVER_BACKOFF = { baseMs: 100, maxMs: 1_000 };
const FAILOVER_WAIT_MS = 10_000;

/** Set while an outer level retries conflicts: every level below it tries once and lets the conflict go up. */
const retriedAbove = new AsyncLocalStorage<true>();

/**
 * Runs work whose conflicts the caller retries by other means (the Kubernetes consumer: the
 * message goes back for redelivery): no command inside it retries on its own.
 */
export const conflictsGoUp = <T>(work: () => Promise<T>): Promise<T> => retriedAbove.run(true, work);

/**
 * Retries happen at one level only, the outermost, which knows the deadline: a REST request's
 * (its abort signal), or ATTEMPTS tries without one. A REST request also waits out a database
 * lost under it (a failover, a restart) for up to FAILOVER_WAIT_MS; work outside a request (the
 * Kubernetes consumer) is redelivered instead. Nested calls (a handler's inside another
 * handler's, or inside the consumer's `conflictsGoUp`) run their work once.
 */
export async function retryOnConflict<T>(work: (attempt: number) => Promise<T>): Promise<T> {
  if (retriedAbove.getStore()) return work(1);
  const signal = currentRequestContext()?.signal;
  return retriedAbove.run(true, async () => {
    let unavailable = 0;
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await work(attempt);
      } catch (err) {
        if (signal && !signal.aborted && Date.now() - started < FAILOVER_WAIT_MS && isDatabaseUnavailable(err)) {
          // the work decides again on a fresh connection: an append that did commit before its
          // connection broke is then found (its expected version moved) and answered as a repeat
          await new Promise((resolve) => setTimeout(resolve, backoffDelayMs(++unavailable, FAILOVER_BACKOFF)));
          attempt--;
          continue;
        }
        if (!isConflict(err)) throw err;
        if (attempt >= ATTEMPTS || signal?.aborted) {
          throw new DomainError(
            'CONCURRENCY_CONFLICT',
            `gave up after ${attempt} attempts: too many concurrent writers on the same objects; retry`,
          );
        }
        await conflictPause(attempt);
      }
    }
  });
}

/** A short jittered wait that grows with the attempt, so replicas that collided do not collide again in step. */
export function conflictPause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, conflictDelayMs(attempt)));
}

export const conflictDelayMs = (attempt: number): number => backoffDelayMs(attempt, CONFLICT_BACKOFF);
