import { DomainError } from '@ipledger/domain';
import { ConcurrencyError } from '@ipledger/event-store';
import { backoffDelayMs } from '@ipledger/runtime';

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

export async function retryOnConflict<T>(work: (attempt: number) => Promise<T>, attempts = 20): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (err) {
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

/** A short jittered wait that grows with the attempt, so replicas that collided do not collide again in step. */
export function conflictPause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, backoffDelayMs(attempt, CONFLICT_BACKOFF)));
}
