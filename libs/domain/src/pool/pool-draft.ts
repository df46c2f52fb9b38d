import { OverlayMap } from './overlay-map';
import type { Holder, PoolState, PoolView } from './pool-state';

/**
 * A writable copy of a pool's state, for deciding a batch of requests one after another (each
 * decision's events folded in before the next is decided) without touching the state it came
 * from, which the aggregate cache shares. Address sets are copied (O(runs)); the holder maps are
 * overlaid (O(changes), see OverlayMap.over), and so are the cooling addresses (CoolingQueue), so a
 * pool of a million holders costs O(√holders) a change, not O(holders).
 */
export function draftPool(state: PoolView): PoolState {
  return {
    ...state,
    labels: { ...state.labels },
    reserved: [...state.reserved],
    reservedSet: state.reservedSet.clone(),
    ranges: new Map(state.ranges),
    rangeSet: state.rangeSet.clone(),
    heldSet: state.heldSet.clone(),
    used: state.used.clone(),
    holders: OverlayMap.over<bigint, Holder>(state.holders),
    byHandle: OverlayMap.over(state.byHandle),
    claimed: OverlayMap.over(state.claimed),
    cooling: state.cooling.draft(),
  };
}
