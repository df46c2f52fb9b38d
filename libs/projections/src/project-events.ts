import { upcast } from '@ipledger/domain';
import type { RecordedEvent } from '@ipledger/event-store';
import { allocationRowsCte, projectAllocationEvents } from './allocation.projection';
import { projectClaimEvent } from './claim.projection';
import { projectClusterEvent } from './cluster.projection';
import { projectNodeEvent, projectNodeLabelRun } from './node.projection';
import { poolAllocationsCte, projectPoolAllocations, projectPoolEvent, projectPoolsCreated } from './pool.projection';
import { projectStatefulSetEvent } from './statefulset.projection';
import type { Queryable } from './queryable';

const isAllocationEvent = (event: RecordedEvent) => event.type === 'IpAllocated' || event.type === 'IpReleased';

/** Event types a run of which is projected set-based, as one: what a batch of Node or IPPool messages appends. */
const RUNS: Record<string, (db: Queryable, run: readonly RecordedEvent[]) => Promise<void>> = {
  NodeLabelsSet: projectNodeLabelRun,
  PoolCreated: projectPoolsCreated,
};

/**
 * Applies events to every read model, in order. Called inside the append transaction (so reads
 * after a write see it) and by a rebuild from position zero (so the two cannot differ). A run of
 * allocations and releases (a group commit's, over any number of pools) is projected in a few
 * statements, not two per event, and so is a run of node labels or of pool creations (RUNS).
 */
export async function projectEvents(db: Queryable, events: readonly RecordedEvent[]): Promise<void> {
  for (let i = 0; i < events.length; ) {
    if (isAllocationEvent(events[i])) {
      let end = i + 1;
      while (end < events.length && isAllocationEvent(events[end])) end++;
      const run = events.slice(i, end).map(upcast);
      // allocations before pools: a pool's counts are derived from its allocation rows
      await projectAllocationEvents(db, run);
      await projectPoolAllocations(db, run);
      i = end;
      continue;
    }
    const projectRun = RUNS[events[i].type];
    if (projectRun) {
      let end = i + 1;
      while (end < events.length && events[end].type === events[i].type) end++;
      await projectRun(db, events.slice(i, end).map(upcast));
      i = end;
      continue;
    }
    const event = upcast(events[i++]);
    await projectPoolEvent(db, event);
    await projectNodeEvent(db, event);
    await projectStatefulSetEvent(db, event);
    await projectClusterEvent(db, event);
    await projectClaimEvent(db, event);
  }
}

/**
 * projectEvents for an append of only allocations or only releases (a group commit's usual batch),
 * as CTEs for the append's own statement (appendToStreams' sameStatement); undefined for any other
 * append. A mix is left to projectEvents: a release and a re-allocation of one address must be
 * applied in order, which sub-statements of one statement are not.
 */
export function sameStatementProjection(types: readonly string[]): string | undefined {
  const type = types[0];
  if ((type !== 'IpAllocated' && type !== 'IpReleased') || types.some((t) => t !== type)) return undefined;
  return `${allocationRowsCte(type)}, ${poolAllocationsCte(type)}`;
}
