import type { UnitOfWork } from '@ipledger/domain';
import { DomainError } from '@ipledger/domain';
import { ConcurrencyError } from '@ipledger/event-store';
import { backoffDelayMs } from '@ipledger/runtime';
import type { PoolClient } from 'pg';
import { isDatabaseUnavailable } from './database-unavailable';
import type { Change } from './change';

/**
 * The command appends in transactions of its own (its events and their projections in one
 * statement where it can). `retries`: it decides again on fresh state after a conflict, bounded by
 * the request's `signal` (a REST request: also waiting out a failover), else by ATTEMPTS; false
 * when the caller retries by other means (the Kubernetes consumer: the message is redelivered).
 */
export class OwnTransaction implements UnitOfWork {
  readonly mode = 'own-transaction';

  constructor(readonly options: { retries: boolean; signal?: AbortSignal }) {}
}

/**
 * Every append first runs `check` in its transaction (the consumer's order check for one object:
 * see kubernetes-objects.ts), and each stream's version the work decided on is noted in `reads`,
 * so that the caller confirms its outcome only while they hold. Tried once: the caller requeues.
 */
export class FencedWrites implements UnitOfWork {
  readonly mode = 'fenced';
  /** stream id -> the version the work's latest decision on it was made at */
  readonly reads = new Map<string, number>();

  constructor(readonly check: (client: PoolClient) => Promise<void>) {}
}

/**
 * The appends are collected in `changes` instead of written (and return []), with the versions
 * read, for the caller to commit with other work's (EventWriter.commitGroup). Only for commands
 * that append once and read nothing back (a node's labels, creating or updating a pool). Tried once.
 */
export class DeferredWrites implements UnitOfWork {
  readonly mode = 'deferred';
  readonly reads = new Map<string, number>();
  readonly changes: Change[] = [];
}

export type Writes = OwnTransaction | FencedWrites | DeferredWrites;

/** The unit a command carries, as this app implements it. */
export function writesOf(unit: UnitOfWork): Writes {
  if (unit instanceof OwnTransaction || unit instanceof FencedWrites || unit instanceof DeferredWrites) return unit;
  throw new Error(`unknown unit of work: ${unit.mode}`);
}

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

/**
 * Runs a command's work as its unit says: once, or (an OwnTransaction that retries) again after
 * each conflict until it commits, ATTEMPTS tries or the request's signal, and for a request
 * through a database lost under it (a failover, a restart) for up to FAILOVER_WAIT_MS.
 */
export async function attempts<T>(unit: UnitOfWork, work: (attempt: number) => Promise<T>): Promise<T> {
  const writes = writesOf(unit);
  if (!(writes instanceof OwnTransaction) || !writes.options.retries) return work(1);
  const signal = writes.options.signal;
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
}

/** A short jittered wait that grows with the attempt, so replicas that collided do not collide again in step. */
export function conflictPause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, conflictDelayMs(attempt)));
}

export const conflictDelayMs = (attempt: number): number => backoffDelayMs(attempt, CONFLICT_BACKOFF);
