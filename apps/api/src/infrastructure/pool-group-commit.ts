import { Injectable } from '@nestjs/common';
import { draftPool, PoolAggregate, type CommandMetadata, type PoolEvent, type PoolView } from '@ipledger/domain';
import { ConcurrencyError, type RecordedEvent } from '@ipledger/event-store';
import { EventWriter } from './event-writer';
import { KeyedMutex } from './keyed-mutex';
import { jitter } from './retry-on-conflict';

/** One request's part in a batch: a decision on the pool as the batch left it so far. */
export interface PoolWork<T> {
  metadata: CommandMetadata;
  /** Pure: reads the state, returns the events to append and how to answer once they are committed. A throw fails this request alone. */
  decide(state: PoolView): { events: PoolEvent[]; answer(recorded: RecordedEvent[]): T };
}

interface Queued {
  work: PoolWork<unknown>;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

const ATTEMPTS = 20;

/**
 * Group commit per pool: requests that meet on one pool are decided one after another on a draft
 * of its state, then appended in one transaction (one commit, one fsync, one round of projections).
 * While a batch commits, the next one gathers. Each request is answered when its batch commits,
 * with what it would have got alone in the batch's order; a refusal fails only its own request.
 * A version conflict (another replica appended to the pool) re-decides the whole batch on fresh
 * state; any other failure fails the batch's requests, which decide again from the start (so a
 * unique-index clash, the second line, is handled as before). The pool's lock is the one the
 * multi-pool commands (dual stack, StatefulSets) take, so they and batches take turns.
 */
@Injectable()
export class PoolGroupCommit {
  private readonly gathering = new Map<string, Queued[]>();

  constructor(
    private readonly writer: EventWriter,
    private readonly mutex: KeyedMutex,
  ) {}

  run<T>(pool: string, work: PoolWork<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const queued: Queued = { work, resolve: resolve, reject };
      const batch = this.gathering.get(pool);
      if (batch) {
        batch.push(queued);
        return;
      }
      this.gathering.set(pool, [queued]);
      void this.commitNext(pool);
    });
  }

  private async commitNext(pool: string): Promise<void> {
    const unlock = await this.mutex.lock(`pool-${pool}`);
    const batch = this.gathering.get(pool)!;
    // from here on, arrivals gather into the next batch, which waits for this one's lock
    this.gathering.delete(pool);
    try {
      await this.commit(pool, batch);
    } catch (err) {
      batch.forEach((queued) => queued.reject(err));
    } finally {
      unlock();
    }
  }

  private async commit(pool: string, batch: Queued[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const loaded = await this.writer.load(PoolAggregate, pool);
      const draft = draftPool(loaded.state);
      const decided = batch.map(({ work }) => {
        try {
          const decision = work.decide(draft);
          for (const event of decision.events) PoolAggregate.evolve(draft, { ...event, version: loaded.version });
          return decision;
        } catch (err) {
          return { refused: err };
        }
      });
      const events = decided.flatMap((d) => ('events' in d ? d.events : []));
      const metadata = batch.flatMap(({ work }, i) => {
        const d = decided[i];
        return 'events' in d ? d.events.map(() => work.metadata) : [];
      });
      let recorded: RecordedEvent[];
      try {
        recorded = await this.writer.append([{ type: PoolAggregate, loaded, events, metadata }]);
      } catch (err) {
        if (err instanceof ConcurrencyError && attempt < ATTEMPTS) {
          await jitter(attempt);
          continue;
        }
        throw err;
      }
      let next = 0;
      batch.forEach((queued, i) => {
        const d = decided[i];
        if (!('events' in d)) return queued.reject(d.refused);
        const own = recorded.slice(next, next + d.events.length);
        next += d.events.length;
        try {
          queued.resolve(d.answer(own));
        } catch (err) {
          queued.reject(err);
        }
      });
      return;
    }
  }
}
