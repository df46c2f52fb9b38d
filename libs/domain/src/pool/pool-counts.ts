import type { PoolView } from './pool-state';

export interface PoolCounts {
  capacity: bigint;
  allocated: bigint;
  reservedCount: bigint;
  /** of reservedCount, the addresses of StatefulSet ranges and ip-sets that no pod holds now */
  rangeReservedCount: bigint;
  free: bigint;
}

export function poolCounts(state: PoolView): PoolCounts {
  const capacity = state.usableLast - state.usableFirst + 1n;
  const allocated = BigInt(state.holders.size);
  // range addresses no pod holds now are held back too
  let rangeReservedCount = 0n;
  for (const { start, end } of state.ranges.values()) rangeReservedCount += state.heldSet.gapCount(start, end);
  const reservedCount = state.reservedSet.count() + rangeReservedCount;
  return { capacity, allocated, reservedCount, rangeReservedCount, free: capacity - allocated - reservedCount };
}
