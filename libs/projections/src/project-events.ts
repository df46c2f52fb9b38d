import { upcast } from '@ipledger/domain';
import type { RecordedEvent } from '@ipledger/event-store';
import { projectAllocationEvent } from './allocation.projection';
import { projectNodeEvent } from './node.projection';
import { projectPoolEvent } from './pool.projection';
import { projectStatefulSetEvent } from './statefulset.projection';
import type { Queryable } from './queryable';

/**
 * Applies events to every read model, in order. Called inside the append transaction (so reads
 * after a write see it) and by a rebuild from position zero (so the two cannot differ).
 */
export async function projectEvents(db: Queryable, events: readonly RecordedEvent[]): Promise<void> {
  for (const recorded of events) {
    const event = upcast(recorded);
    // allocations before pools: a pool's counts are derived from its allocation rows
    await projectAllocationEvent(db, event);
    await projectPoolEvent(db, event);
    await projectNodeEvent(db, event);
    await projectStatefulSetEvent(db, event);
  }
}
