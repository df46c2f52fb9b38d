import type { AggregateType, CommandMetadata, DomainEvent } from '@ipledger/domain';
import type { Loaded } from '@ipledger/event-store';

/** What a decision changes in one stream: the events to append after the version it was loaded at. */
export interface Change<S = unknown> {
  type: AggregateType<S>;
  loaded: Loaded<S>;
  events: DomainEvent[];
  /** per event, when the events come from different commands (a group commit); else the append's */
  metadata?: CommandMetadata[];
}
