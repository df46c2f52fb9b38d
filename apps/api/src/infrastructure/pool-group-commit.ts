import { Injectable } from '@nestjs/common';
import { draftPool, PoolAggregate, type CommandMetadata, type PoolEvent, type PoolView } from '@ipledger/domain';
import { ConcurrencyError, type RecordedEvent } from '@ipledger/event-store';
import { EventWriter, type Change } from './event-writer';
import { outsideRequest } from '../http/request-context';
import { conflictPause } from './retry-on-conflict';
import { runUnfenced } from './write-fence';

/** One request's part in a batch: a decision on its pool as the batch left it so far. */
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

type Decided = { events: PoolEvent[]; answer(recorded: RecordedEvent[]): unknown } | { refused: unknown };

const ATTEMPTS = 20;
/** Transactions in flight at once (on disjoint pools): the next batch loads while one commits. */
const IN_FLIGHT = 2;

/**
 * Group commit: the requests waiting on pools are decided one after another on a draft of each
 * pool's state, in arrival order per pool, and appended in one transaction (one commit, one
 * fsync, one round of projections), whatever the number of pools; the next batch gathers while
 * this one commits. Each request is answered when its batch commits, with what it would have got
 * alone in the batch's order; a refusal (IP_IN_USE...) fails only its own request.
 *
 * The event store's expected versions stay the guard: a version conflict (another replica, or a
 * dual-stack or StatefulSet command of this one, appended to a pool) re-decides the batch on
 * fresh state; any other failure, such as the unique index of the allocations read model
 * catching a handle twice, fails the batch's requests, which decide again from the start.
 * Work inside a write fence (the Kubernetes consumer) does not come here: its fence must be
 * checked in a transaction of its own.
 */
@Injectable()
export class PoolGroupCommit {
  private readonly waiting = new Map<string, Queued[]>();
  /** pools in a transaction now: their next requests wait for the next batch */
  private readonly busy = new Set<string>();
  private inFlight = 0;

  constructor(private readonly writer: EventWriter) {}

  run<T>(pool: string, work: PoolWork<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const queued: Queued = { work, resolve: resolve, reject };
      const waiting = this.waiting.get(pool);
      if (waiting) waiting.push(queued);
      else this.waiting.set(pool, [queued]);
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.inFlight < IN_FLIGHT) {
      const pools = [...this.waiting.keys()].filter((pool) => !this.busy.has(pool));
      if (pools.length === 0) return;
      const batch = new Map(pools.map((pool) => [pool, this.waiting.get(pool)!]));
      for (const pool of pools) {
        this.waiting.delete(pool);
        this.busy.add(pool);
      }
      this.inFlight++;
      // the batch is every request's, none's in particular: outside the async context of the
      // request that happened to start it (its abort signal, a Kubernetes message's write fence)
      outsideRequest(() =>
        runUnfenced(() => {
          void this.commit(batch)
            .catch((err: unknown) => batch.forEach((queued) => queued.forEach((q) => q.reject(err))))
            .finally(() => {
              pools.forEach((pool) => this.busy.delete(pool));
              this.inFlight--;
              this.dispatch();
            });
        }),
      );
    }
  }

  private async commit(batch: Map<string, Queued[]>): Promise<void> {
    const pools = [...batch.keys()];
    for (let attempt = 1; ; attempt++) {
      const loaded = await this.writer.loadMany(PoolAggregate, pools);
      // a handle is new in at most one pool of a batch (the allocations key): a second is decided again after this batch
      const handles = new Set<string>();
      const decided = pools.map((pool, i) => this.decide(loaded[i].state, batch.get(pool)!, handles));
      const changes: Change[] = pools.map((pool, i) => {
        const made = decided[i].filter((d) => 'events' in d);
        return {
          type: PoolAggregate,
          loaded: loaded[i],
          events: made.flatMap((d) => d.events),
          metadata: batch
            .get(pool)!
            .flatMap(({ work }, j) => ('events' in decided[i][j] ? decided[i][j].events.map(() => work.metadata) : [])),
        };
      });
      let recorded: RecordedEvent[];
      try {
        recorded = await this.writer.append(changes);
      } catch (err) {
        if (err instanceof ConcurrencyError && attempt < ATTEMPTS) {
          await conflictPause(attempt);
          continue;
        }
        throw err;
      }
      pools.forEach((pool, i) =>
        answer(
          batch.get(pool)!,
          decided[i],
          recorded.filter((e) => e.streamId === loaded[i].streamId),
        ),
      );
      return;
    }
  }

  /** The pool's requests in order on one draft, each seeing the events of those before it. */
  private decide(state: PoolView, queued: Queued[], handles: Set<string>): Decided[] {
    const draft = draftPool(state);
    return queued.map(({ work }) => {
      try {
        const decision = work.decide(draft);
        for (const event of decision.events) {
          if (event.type === 'IpAllocated') {
            if (handles.has(event.data.handle)) return { refused: new ConcurrencyError(`pool-${draft.name}`, 0) };
            handles.add(event.data.handle);
          }
        }
        for (const event of decision.events) PoolAggregate.evolve(draft, { ...event, version: 0 });
        return decision;
      } catch (err) {
        return { refused: err };
      }
    });
  }
}

/** Each request its own events' answer, or its own refusal. */
function answer(queued: Queued[], decided: Decided[], recorded: RecordedEvent[]): void {
  let next = 0;
  queued.forEach((q, i) => {
    const d = decided[i];
    if (!('events' in d)) return q.reject(d.refused);
    const own = recorded.slice(next, next + d.events.length);
    next += d.events.length;
    try {
      q.resolve(d.answer(own));
    } catch (err) {
      q.reject(err);
    }
  });
}
