import type { Cidr } from '@ipledger/ip';
import { inCluster } from '../cluster/cluster-scope';
import { DomainError } from '../errors/domain-error';
import type { RangeReserved } from '../events';
import { existing } from './existing-pool';
import { findFreeRange } from './free-range-finder';
import { poolAddress } from './pool-address';
import { inNetwork } from './pool-network';
import type { PoolView } from './pool-state';
import { describeRangeOwner, rangeOwner } from './range-owner';

/**
 * A first range of `length` continuous free addresses for a StatefulSet (see free-range-finder.ts),
 * or null when the pool has no such run: its pods then get addresses on the fly.
 */
export function decideReserveRange(
  state: PoolView,
  cluster: string,
  namespace: string,
  name: string,
  length: bigint,
): RangeReserved | null {
  const pool = existing(state, state.name);
  const owner = rangeOwner(cluster, namespace, name);
  if (pool.ranges.has(owner)) {
    // the caller checks first (plan-reservation.ts): a range here now is a concurrent reconcile's
    throw new DomainError('CONCURRENCY_CONFLICT', `${describeRangeOwner(owner)} already has a range: resize it`);
  }
  const range = findFreeRange(pool, length);
  return range && rangeReserved(pool, cluster, namespace, name, range.start, range.end);
}

/** The owner's range in the pool is now `start..end`. */
export function rangeReserved(
  pool: PoolView & { cidr: Cidr },
  cluster: string,
  namespace: string,
  name: string,
  start: bigint,
  end: bigint,
): RangeReserved {
  return {
    type: 'RangeReserved',
    data: {
      pool: pool.name,
      namespace,
      name,
      ...inCluster(cluster),
      start: poolAddress(pool, start),
      end: poolAddress(pool, end),
      ...inNetwork(pool),
    },
  };
}
