import { Inject, Injectable, Logger } from '@nestjs/common';
import { schemaVersionOf, type AggregateType, type CommandMetadata, type DomainEvent } from '@ipledger/domain';
import { AggregateRepository, appendToStreams, type AppendOptions, type Loaded, type RecordedEvent } from '@ipledger/event-store';
import { projectEvents, sameStatementProjection } from '@ipledger/projections';
import type { Pool } from 'pg';
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

/**
 * The one way commands write: every changed stream in one transaction at its expected version,
 * the read models updated inside it, then the aggregate cache moved forward.
 */
@Injectable()
export class EventWriter {
  private readonly logger = new Logger('event-writer');

  constructor(
    @Inject(PG_POOL) private readonly db: Pool,
    readonly repository: AggregateRepository,
  ) {}

  async load<S>(type: AggregateType<S>, id: string): Promise<Loaded<S>> {
    const loaded = await this.repository.load(type, id);
    currentFence()?.reads.set(loaded.streamId, loaded.version);
    return loaded;
  }

  /** See AggregateRepository.loadMany for `trustCache`. */
  loadMany<S>(type: AggregateType<S>, ids: readonly string[], options?: { trustCache?: boolean }): Promise<Array<Loaded<S>>> {
    return this.repository.loadMany(type, ids, options);
  }

  /** `precondition`: see AppendOptions; PreconditionFailedError when it does not hold. */
  async append(changes: Change[], metadata?: CommandMetadata, precondition?: AppendOptions['precondition']): Promise<RecordedEvent[]> {
    const writes = changes.filter((change) => change.events.length > 0);
    if (writes.length === 0) return [];
    const fence = currentFence();
    // allocations or releases alone, unfenced (the hot path): the append and its projections in one statement
    const sameStatement = fence ? undefined : sameStatementProjection(writes.flatMap((change) => change.events.map((event) => event.type)));
    const recorded = await appendToStreams(
      this.db,
      writes.map((change) => ({
        streamId: change.loaded.streamId,
        expectedVersion: change.loaded.version,
        events: change.events.map((event, index) => ({
          type: event.type,
          schemaVersion: schemaVersionOf(event.type),
          data: event.data,
          metadata: { ...(change.metadata?.[index] ?? metadata) },
        })),
      })),
      sameStatement
        ? { sameStatement, precondition }
        : { beforeWrite: fence?.check, inTransaction: (client, events) => projectEvents(client, events), precondition },
    );
    for (const event of recorded) fence?.reads.set(event.streamId, event.version);
    for (const change of writes) {
      // the events are committed: a failed snapshot write only costs a longer load later
      await this.repository
        .committed(change.type, change.loaded, recorded)
        .catch((err: Error) => this.logger.warn(`snapshot of ${change.loaded.streamId} not written: ${err.message}`));
    }
    return recorded;
  }

  /**
   * Commits a fence's check with nothing to append, provided every stream the fenced work read is
   * still at the version it decided on; ConcurrencyError otherwise (the work must decide again).
   */
  async confirm(fence: WriteFence): Promise<void> {
    const guards = [...fence.reads].map(([streamId, expectedVersion]) => ({ streamId, expectedVersion, events: [] }));
    await appendToStreams(this.db, guards, { beforeWrite: fence.check });
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
