import { AsyncLocalStorage } from 'node:async_hooks';
import { DomainError } from '@ipledger/domain';
import { ConcurrencyError } from '@ipledger/event-store';
import { backoffDelayMs } from '@ipledger/runtime';
import { currentRequestContext } from '../http/request-context';

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

/** Set while an outer level retries conflicts: every level below it tries once and lets the conflict go up. */
const retriedAbove = new AsyncLocalStorage<true>();

/**
 * Runs work whose conflicts the caller retries by other means (the Kubernetes consumer: the
 * message goes back for redelivery): no command inside it retries on its own.
 */
export const conflictsGoUp = <T>(work: () => Promise<T>): Promise<T> => retriedAbove.run(true, work);

/**
 * Retries happen at one level only, the outermost, which knows the deadline: a REST request's
 * (its abort signal), or ATTEMPTS tries without one. Nested calls (a handler's inside another
 * handler's, or inside the consumer's `conflictsGoUp`) run their work once.
 */
export async function retryOnConflict<T>(work: (attempt: number) => Promise<T>): Promise<T> {
  if (retriedAbove.getStore()) return work(1);
  const signal = currentRequestContext()?.signal;
  return retriedAbove.run(true, async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await work(attempt);
      } catch (err) {
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
