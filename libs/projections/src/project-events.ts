import type { RecordedEvent } from '@ipledger/event-store';
import { projectAllocationEvent } from './allocation.projection';
import { projectNodeEvent } from './node.projection';
import { projectPoolEvent } from './pool.projection';
import type { Queryable } from './queryable';

/**
 * Applies events to every read model, in order. Called inside the append transaction (so reads
 * after a write see it) and by a rebuild from position zero (so the two cannot differ).
 */
export async function projectEvents(db: Queryable, events: readonly RecordedEvent[]): Promise<void> {
  for (const event of events) {
    await projectPoolEvent(db, event);
    await projectAllocationEvent(db, event);
    await projectNodeEvent(db, event);
  }
}
