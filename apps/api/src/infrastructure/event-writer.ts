import { Inject, Injectable, Logger } from '@nestjs/common';
import { schemaVersionOf, type AggregateType, type CommandMetadata, type DomainEvent, type UnitOfWork } from '@ipledger/domain';
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
import { PG_POOL } from './tokens';
import type { Change } from './change';
import { attempts, DeferredWrites, FencedWrites, writesOf } from './unit-of-work';

export type { Change } from './change';

/**
 * The one way commands write: every changed stream in one transaction at its expected version,
 * the read models updated inside it, then the aggregate cache moved forward. How a command's
 * appends commit is its unit of work's (unit-of-work.ts); the group commit's is appendGroup.
 */
@Injectable()
export class EventWriter {
  private readonly logger = new Logger('event-writer');
  private readonly batchedLoads = new Map<AggregateType<unknown>, ReadBatcher<string, Loaded<unknown>>>();

  constructor(
    @Inject(PG_POOL) private readonly db: Pool,
    readonly repository: AggregateRepository,
  ) {}

  /** A command's read of a stream: a fenced or deferred unit notes the version it decides on. */
  async load<S>(type: AggregateType<S>, id: string, unit: UnitOfWork): Promise<Loaded<S>> {
    const writes = writesOf(unit);
    // decisions whose appends are deferred come many at once (a batch of messages): their loads are made together too
    const loaded = writes instanceof DeferredWrites ? await this.loadBatched(type, id) : await this.repository.load(type, id);
    if (writes instanceof FencedWrites || writes instanceof DeferredWrites) writes.reads.set(loaded.streamId, loaded.version);
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

  /**
   * A command's appends, as its unit says: collected (DeferredWrites), in a transaction that
   * first passes the fence's check (FencedWrites), or on their own (OwnTransaction).
   */
  async append(unit: UnitOfWork, changes: Change[], metadata: CommandMetadata): Promise<RecordedEvent[]> {
    const writes = writesOf(unit);
    const nonEmpty = changes.filter((change) => change.events.length > 0);
    if (nonEmpty.length === 0) return [];
    if (writes instanceof DeferredWrites) {
      writes.changes.push(...nonEmpty.map((change) => withMetadata(change, metadata)));
      return [];
    }
    if (!(writes instanceof FencedWrites)) return this.appendGroup(nonEmpty.map((change) => withMetadata(change, metadata)));
    const recorded = await appendToStreams(
      this.db,
      nonEmpty.map((change) => toAppend(change, metadata)),
      { beforeWrite: writes.check, inTransaction: (client, events) => projectEvents(client, events) },
    );
    for (const event of recorded) writes.reads.set(event.streamId, event.version);
    await this.committed(nonEmpty, recorded);
    return recorded;
  }

  /**
   * The group commit's write (PoolGroupCommit), and an OwnTransaction's: changes whose events
   * carry their own metadata, in one transaction; allocations or releases alone (the hot path)
   * with their projections in one statement. `precondition`: see AppendOptions;
   * PreconditionFailedError when it does not hold.
   */
  async appendGroup(changes: Change[], precondition?: AppendOptions['precondition']): Promise<RecordedEvent[]> {
    const writes = changes.filter((change) => change.events.length > 0);
    if (writes.length === 0) return [];
    const sameStatement = sameStatementProjection(writes.flatMap((change) => change.events.map((event) => event.type)));
    const recorded = await appendToStreams(
      this.db,
      writes.map((change) => toAppend(change)),
      sameStatement ? { sameStatement, precondition } : { inTransaction: (client, events) => projectEvents(client, events), precondition },
    );
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
   * Commits a fenced unit's final `check` with nothing to append, provided every stream it read
   * (FencedWrites.reads) is still at the version it decided on; ConcurrencyError otherwise (the
   * work must decide again).
   */
  confirm(reads: ReadonlyMap<string, number>, check: (client: PoolClient) => Promise<void>): Promise<void> {
    return this.commitGroup([], reads, check);
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
    unit: UnitOfWork,
  ): Promise<RecordedEvent[]> {
    return attempts(unit, async () => {
      const loaded = await this.load(type, id, unit);
      const event = decide(loaded.state);
      return event ? this.append(unit, [{ type, loaded, events: [event] }], metadata) : [];
    });
  }
}

const withMetadata = (change: Change, metadata: CommandMetadata): Change => ({
  ...change,
  metadata: change.events.map((_, i) => change.metadata?.[i] ?? metadata),
});

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
