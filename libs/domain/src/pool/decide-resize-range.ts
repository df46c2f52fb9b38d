import { DomainError } from '../errors/domain-error';
import type { RangeReserved } from '../events';
import { rangeReserved } from './decide-reserve-range';
import { existing } from './existing-pool';
import { isFreeSpan } from './free-range-finder';
import type { PoolView } from './pool-state';
import { describeRangeOwner, rangeOwner } from './range-owner';

/**
 * The StatefulSet's range resized in place to `length` addresses from the same start. Growing
 * needs the addresses after the range to be free; when they are not, null (the extra ordinals get
 * addresses on the fly). Shrinking always succeeds: addresses above the new end that pods still
 * hold stay theirs and become free when released. The same length is null too: nothing to do.
 */
export function decideResizeRange(state: PoolView, cluster: string, namespace: string, name: string, length: bigint): RangeReserved | null {
  const pool = existing(state, state.name);
  const owner = rangeOwner(cluster, namespace, name);
  const range = pool.ranges.get(owner);
  if (!range) {
    // the caller checks first (plan-reservation.ts): no range here now is a concurrent change's
    throw new DomainError('CONCURRENCY_CONFLICT', `${describeRangeOwner(owner)} has no range in pool "${pool.name}"`);
  }
  const end = range.start + length - 1n;
  if (end === range.end || length < 1n) return null;
  if (end > range.end && !isFreeSpan(pool, range.end + 1n, end)) return null;
  return rangeReserved(pool, cluster, namespace, name, range.start, end);
}
