import { Injectable } from '@nestjs/common';
import { draftPool, foldIntoDraft, PoolAggregate, type CommandMetadata, type PoolEvent, type PoolView } from '@ipledger/domain';
import { ConcurrencyError, PreconditionFailedError, type RecordedEvent } from '@ipledger/event-store';
import { unreadStartPrecondition, type UnreadStart } from '@ipledger/projections';
import { BatchQueue } from './batch-queue';
import { EventWriter, type Change } from './event-writer';

/** One request's part in a batch: a decision on its pool as the batch left it so far. */
export interface PoolWork<T> {
  metadata: CommandMetadata;
  /** Pure: reads the state, returns the events to append and how to answer once they are committed. A throw fails this request alone. */
  decide(state: PoolView): { events: PoolEvent[]; answer(recorded: RecordedEvent[]): T };
  /** set when the request was decided without its start read: the append then proves that read would have found nothing */
  unread?: UnreadStart;
}

interface Queued {
  pool: string;
  work: PoolWork<unknown>;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

type Decided = { events: PoolEvent[]; answer(recorded: RecordedEvent[]): unknown } | { refused: unknown };

/**
 * Group commit: the requests that meet (see BatchQueue) are decided one after another on a draft
 * of each pool's state, in arrival order per pool, and appended in one transaction (one commit,
 * one fsync, one round of projections), whatever the number of pools; the next batch gathers
 * while this one commits. Each request is answered when its batch commits, with what it would
 * have got alone in the batch's order; a refusal (IP_IN_USE...) fails only its own request.
 *
 * The first attempt decides on the cached states without reading them (AggregateRepository's
 * trustCache), and the event store's expected versions stay the guard: a version conflict
 * (another replica, or a dual-stack or StatefulSet command of this one, appended to a pool), or
 * any other failure such as the unique index of the allocations read model catching a handle
 * twice, fails the batch's requests, which decide again from the start (their handler's retry,
 * the one level that retries), the pools that fell behind read afresh. Only an OwnTransaction's work comes here: a fenced
 * unit's check must run in a transaction of its own, and a deferred unit's appends are its caller's.
 */
@Injectable()
export class PoolGroupCommit {
  private readonly queue: BatchQueue<Queued>;
  /** pools whose cached state another writer moved past: the next batch on them reads them */
  private readonly behind = new Set<string>();

  constructor(private readonly writer: EventWriter) {
    this.queue = new BatchQueue((queued) => {
      const batch = new Map<string, Queued[]>();
      for (const q of queued) {
        const pool = batch.get(q.pool);
        if (pool) pool.push(q);
        else batch.set(q.pool, [q]);
      }
      return this.commit(batch).catch((err: unknown) => queued.forEach((q) => q.reject(err)));
    });
  }

  run<T>(pool: string, work: PoolWork<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => this.queue.push({ pool, work, resolve, reject }));
  }

  private async commit(batch: Map<string, Queued[]>): Promise<void> {
    const pools = [...batch.keys()];
    // on the cached states as they stand (the append's expected versions prove them current), unless one fell behind
    const trustCache = !pools.some((pool) => this.behind.has(pool));
    const loaded = await this.writer.loadMany(PoolAggregate, pools, { trustCache });
    pools.forEach((pool) => this.behind.delete(pool));
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
    const unread = pools.flatMap((pool, i) =>
      batch.get(pool)!.filter(({ work }, j) => {
        const made = decided[i][j];
        return work.unread && 'events' in made && made.events.length > 0;
      }),
    );
    let recorded: RecordedEvent[];
    try {
      const precondition = unread.length > 0 ? unreadStartPrecondition(unread.map(({ work }) => work.unread!)) : undefined;
      recorded = await this.writer.appendGroup(changes, precondition);
    } catch (err) {
      if (err instanceof PreconditionFailedError) return this.commitWithout(batch, unread, err);
      // another writer moved a pool: the requests' own retry (their unit of work's, see attempts) decides again, on fresh state
      if (err instanceof ConcurrencyError) pools.forEach((pool) => this.behind.add(pool));
      throw err;
    }
    pools.forEach((pool, i) =>
      answer(
        batch.get(pool)!,
        decided[i],
        recorded.filter((e) => e.streamId === loaded[i].streamId),
      ),
    );
  }

  /**
   * A precondition failed: only the requests decided without their start read can have decided
   * wrong. They read and decide again (their own retry); the others are decided again at once
   * without them and appended, rather than all going back to their retries: with the Kubernetes
   * consumer on, every StatefulSet pod's first try fails its precondition, and a burst of them
   * would otherwise keep failing the whole pool's batches until the others ran out of attempts.
   */
  private commitWithout(batch: Map<string, Queued[]>, failed: Queued[], err: PreconditionFailedError): Promise<void> {
    failed.forEach((q) => q.reject(err));
    const rest = [...batch].map(([pool, queued]) => [pool, queued.filter((q) => !failed.includes(q))] as const);
    const left = new Map(rest.filter(([, queued]) => queued.length > 0));
    return left.size > 0 ? this.commit(left) : Promise.resolve();
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
        for (const event of decision.events) foldIntoDraft(draft, event);
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
