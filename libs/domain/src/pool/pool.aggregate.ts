import type { AggregateType } from '../aggregate-type';
import { emptyPool, evolvePool, foldPool } from './pool-evolve';
import { deserializePool, serializePool } from './pool-snapshot';
import type { PoolState } from './pool-state';

/**
 * Bytes a pool state holds, estimated (measured on Node 20: a holder with its two map entries and
 * strings about 300, a run of an address set about 80): what bounds the aggregate cache.
 */
function sizeOf(state: PoolState): number {
  const runs = state.used.runCount() + state.heldSet.runCount() + state.rangeSet.runCount() + state.reservedSet.runCount();
  return 1024 + 300 * state.holders.size + 80 * runs + 200 * state.ranges.size + 100 * state.cooling.size + 150 * state.claimed.size;
}

export const PoolAggregate: AggregateType<PoolState> = {
  streamPrefix: 'pool',
  initialState: emptyPool,
  evolve: evolvePool,
  fold: foldPool,
  sizeOf,
  snapshot: {
    // a snapshot lists every holder: a pool holding 100,000 addresses is snapshotted every 100,000 events
    every: (state) => Math.max(200, state.holders.size + state.ranges.size + state.claimed.size),
    serialize: serializePool,
    deserialize: deserializePool,
  },
};
