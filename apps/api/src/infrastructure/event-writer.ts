import { AsyncLocalStorage } from 'node:async_hooks';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { schemaVersionOf, type AggregateType, type CommandMetadata, type DomainEvent } from '@ipledger/domain';
import {
  AggregateRepository,
  appendToStreams,
  type AppendOptions,
  type Loaded,
  type RecordedEvent,
  type StreamAppend,
} from '@ipledger/event-store';
import type { PoolClient } from 'pg';
import { projectEvents, sameStatementProjection } from '@ipledger/projections';
import type { Pool } from 'pg';
import { ReadBatcher } from './read-batcher';
import { retryOnConflict } from './retry-on-conflict';
import { currentFence, type WriteFence } from './write-fence';
import { PG_POOL } from './tokens';

export interface Change<S = unknown> {
  type: AggregateType<S>;
  loaded: Loaded<S>;
  events: DomainEvent[];
  /** per event, when the events come from different commands (a group commit); else the append's */
  metadata?: CommandMetadata[];
}

/** Where the appends of work run by deferAppends go instead of the database. */
const deferred = new AsyncLocalStorage<Change[]>();

/**
 * The one way commands write: every changed stream in one transaction at its expected version,
 * the read models updated inside it, then the aggregate cache moved forward.
 */
@Injectable()
export class EventWriter {
  private readonly logger = new Logger('event-writer');
  private readonly batchedLoads = new Map<AggregateType<unknown>, ReadBatcher<string, Loaded<unknown>>>();

  constructor(
    @Inject(PG_POOL) private readonly db: Pool,
    readonly repository: AggregateRepository,
  ) {}

  async load<S>(type: AggregateType<S>, id: string): Promise<Loaded<S>> {
    // decisions whose appends are deferred come many at once (a batch of messages): their loads are made together too
    const loaded = deferred.getStore() ? await this.loadBatched(type, id) : await this.repository.load(type, id);
    currentFence()?.reads.set(loaded.streamId, loaded.version);
    return loaded;
  }

  private loadBatched<S>(type: AggregateType<S>, id: string): Promise<Loaded<S>> {
    let batcher = this.batchedLoads.get(type);
    if (!batcher) {
      batcher = new ReadBatcher(async (ids) => {
        const distinct = [...new Set(ids)];
        const loaded = new Map((await this.repository.loadMany(type, distinct)).map((one, i) => [distinct[i], one]));
        return ids.map((one) => loaded.get(one)!);
      });
      this.batchedLoads.set(type, batcher);
    }
    return batcher.read(id) as Promise<Loaded<S>>;
  }

  /** See AggregateRepository.loadMany for `trustCache`. */
  loadMany<S>(type: AggregateType<S>, ids: readonly string[], options?: { trustCache?: boolean }): Promise<Array<Loaded<S>>> {
    return this.repository.loadMany(type, ids, options);
  }

  /** `precondition`: see AppendOptions; PreconditionFailedError when it does not hold. */
  async append(changes: Change[], metadata?: CommandMetadata, precondition?: AppendOptions['precondition']): Promise<RecordedEvent[]> {
    const writes = changes.filter((change) => change.events.length > 0);
    if (writes.length === 0) return [];
    const collecting = deferred.getStore();
    if (collecting) {
      collecting.push(...writes.map((change) => ({ ...change, metadata: change.events.map((_, i) => change.metadata?.[i] ?? metadata!) })));
      return [];
    }
    const fence = currentFence();
    // allocations or releases alone, unfenced (the hot path): the append and its projections in one statement
    const sameStatement = fence ? undefined : sameStatementProjection(writes.flatMap((change) => change.events.map((event) => event.type)));
    const recorded = await appendToStreams(
      this.db,
      writes.map((change) => toAppend(change, metadata)),
      sameStatement
        ? { sameStatement, precondition }
        : { beforeWrite: fence?.check, inTransaction: (client, events) => projectEvents(client, events), precondition },
    );
    for (const event of recorded) fence?.reads.set(event.streamId, event.version);
    await this.committed(writes, recorded);
    return recorded;
  }

  /** Moves the cache forward past committed changes. */
  private async committed(changes: Change[], recorded: RecordedEvent[]): Promise<void> {
    for (const change of changes) {
      // the events are committed: a failed snapshot write only costs a longer load later
      await this.repository
        .committed(change.type, change.loaded, recorded)
        .catch((err: Error) => this.logger.warn(`snapshot of ${change.loaded.streamId} not written: ${err.message}`));
    }
  }

  /**
   * Commits a fence's check with nothing to append, provided every stream the fenced work read is
   * still at the version it decided on; ConcurrencyError otherwise (the work must decide again).
   */
  confirm(fence: WriteFence): Promise<void> {
    return this.commitGroup([], fence.reads, fence.check);
  }

  /**
   * Runs work whose appends are collected instead of written, for commitGroup to write with other
   * work's; what the appends would have returned is []. Only for commands that append once and
   * read nothing back (setting a node's labels, creating or updating a pool).
   */
  async deferAppends<T>(work: () => Promise<T>): Promise<{ result: T; changes: Change[] }> {
    const changes: Change[] = [];
    const result = await deferred.run(changes, work);
    return { result, changes };
  }

  /**
   * The deferred changes of several pieces of work in one transaction: `check` first, then each
   * stream read (`reads`) and not written is checked to be still at its version, the events
   * appended at their expected versions and projected. All or nothing: ConcurrencyError when a
   * stream moved. Each stream may appear once.
   */
  async commitGroup(changes: Change[], reads: ReadonlyMap<string, number>, check: (client: PoolClient) => Promise<void>): Promise<void> {
    const written = new Set(changes.map((change) => change.loaded.streamId));
    const guards: StreamAppend[] = [...reads]
      .filter(([streamId]) => !written.has(streamId))
      .map(([streamId, expectedVersion]) => ({ streamId, expectedVersion, events: [] }));
    const recorded = await appendToStreams(this.db, [...changes.map((change) => toAppend(change)), ...guards], {
      beforeWrite: check,
      inTransaction: (client, events) => projectEvents(client, events),
    });
    await this.committed(changes, recorded);
  }

  /**
   * The common command shape: load one aggregate, let it decide, append what it decided (nothing
   * when it decided nothing), deciding again on fresh state after a concurrency conflict.
   */
  decideAndAppend<S>(
    type: AggregateType<S>,
    id: string,
    decide: (state: S) => DomainEvent | null,
    metadata: CommandMetadata,
  ): Promise<RecordedEvent[]> {
    return retryOnConflict(async () => {
      const loaded = await this.load(type, id);
      const event = decide(loaded.state);
      return event ? this.append([{ type, loaded, events: [event] }], metadata) : [];
    });
  }
}

function toAppend(change: Change, metadata?: CommandMetadata): StreamAppend {
  return {
    streamId: change.loaded.streamId,
    expectedVersion: change.loaded.version,
    events: change.events.map((event, index) => ({
      type: event.type,
      schemaVersion: schemaVersionOf(event.type),
      data: event.data,
      metadata: { ...(change.metadata?.[index] ?? metadata) },
    })),
  };
}
