import type { AddressRange, PoolView } from './pool-state';

/**
 * How a continuous range is found for a StatefulSet: first fit over the pool's free space, that is
 * its usable span (never the IPv4 network or broadcast address) less reserved addresses, other
 * StatefulSets' ranges and allocated addresses. The lowest start wins, which keeps ranges packed
 * low like single allocations; RangeSet answers in O(log n + runs in the way), whatever the size of
 * the pool (an IPv6 /64 included).
 */
export function findFreeRange(pool: PoolView, length: bigint): AddressRange | null {
  if (length < 1n) return null;
  const start = pool.used.firstGapOfLength(pool.usableFirst, pool.usableLast, length);
  return start === null ? null : { start, end: start + length - 1n };
}

/** The longest run of free addresses, for telling an operator why no range of the size asked for fits. */
export function largestFreeRun(pool: PoolView): { start: bigint; length: bigint } | null {
  return pool.used.largestGap(pool.usableFirst, pool.usableLast);
}

/** Whether `start..end` lies in the usable span and is entirely free: a range can grow into it. */
export function isFreeSpan(pool: PoolView, start: bigint, end: bigint): boolean {
  return start >= pool.usableFirst && end <= pool.usableLast && !pool.used.overlaps(start, end);
}
