import { blockedPool, blockLength, blockOf, unclaimedSpans, usableOf } from './block-planner';
import type { AddressRange, PoolView } from './pool-state';

/**
 * How a continuous range is found for a StatefulSet: first fit over the pool's free space, that is
 * its usable span (never the IPv4 network or broadcast address) less reserved addresses, other
 * StatefulSets' ranges and allocated addresses. The lowest start wins, which keeps ranges packed
 * low like single allocations; RangeSet answers in O(log n + runs in the way), whatever the size of
 * the pool (an IPv6 /64 included).
 *
 * In a pool with blocks, a range never lies in a block a node claims: that block is routed to its
 * node, and the StatefulSet's pods run anywhere. A range that fits in one block comes out of one
 * unclaimed block (the lowest with room), so it spoils as few blocks as it can; a longer one, or
 * one that no single block has room for, takes consecutive unclaimed blocks. No node claims a block
 * holding a range afterwards (block-planner.ts).
 */
export function findFreeRange(pool: PoolView, length: bigint): AddressRange | null {
  if (length < 1n) return null;
  const withBlocks = blockedPool(pool);
  if (!withBlocks) return firstFit(pool, { start: pool.usableFirst, end: pool.usableLast }, length);
  const spans = unclaimedSpans(withBlocks);
  if (length <= blockLength(withBlocks)) {
    for (const span of spans) {
      for (let first = blockOf(withBlocks, span.start); first <= span.end; first += blockLength(withBlocks)) {
        const inOne = firstFit(pool, usableOf(withBlocks, first), length);
        if (inOne) return inOne;
      }
    }
  }
  for (const span of spans) {
    const across = firstFit(pool, span, length);
    if (across) return across;
  }
  return null;
}

function firstFit(pool: PoolView, { start, end }: AddressRange, length: bigint): AddressRange | null {
  const found = start <= end ? pool.used.firstGapOfLength(start, end, length) : null;
  return found === null ? null : { start: found, end: found + length - 1n };
}

/** The spans a range may lie in: the usable span, or in a pool with blocks the runs of unclaimed blocks. */
function rangeSpans(pool: PoolView): AddressRange[] {
  const withBlocks = blockedPool(pool);
  return withBlocks ? unclaimedSpans(withBlocks) : [{ start: pool.usableFirst, end: pool.usableLast }];
}

/** The longest run of free addresses a range may take, for telling an operator why no range of the size asked for fits. */
export function largestFreeRun(pool: PoolView): { start: bigint; length: bigint } | null {
  let largest: { start: bigint; length: bigint } | null = null;
  for (const { start, end } of rangeSpans(pool)) {
    const gap = pool.used.largestGap(start, end);
    if (gap && (!largest || gap.length > largest.length)) largest = gap;
  }
  return largest;
}

/** Whether `start..end` lies in the usable span and is entirely free, outside nodes' blocks: a range can grow into it. */
export function isFreeSpan(pool: PoolView, start: bigint, end: bigint): boolean {
  return rangeSpans(pool).some((span) => start >= span.start && end <= span.end) && !pool.used.overlaps(start, end);
}
