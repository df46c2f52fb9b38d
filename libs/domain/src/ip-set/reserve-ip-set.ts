import { formatIp } from '@ipledger/ip';
import { clusterOf, inCluster } from '../cluster/cluster-scope';
import { DomainError } from '../errors/domain-error';
import type { RangeReserved } from '../events';
import { findFreeRange, isFreeSpan, largestFreeRun } from '../pool/free-range-finder';
import type { PoolView } from '../pool/pool-state';
import { rangeOwner } from '../pool/range-owner';
import { inNetwork } from '../pool/pool-network';
import { ipSetRangeName, type IpSetRef, type IpSetWanted } from './ip-set';

const describe = (ref: IpSetRef) => `${ref.kind} ${ref.namespace}/${ref.name}${ref.cluster ? ` in cluster "${ref.cluster}"` : ''}`;

const describeWanted = (wanted: IpSetWanted) =>
  'size' in wanted ? `of ${wanted.size} addresses` : `${formatIp(wanted.first)}-${formatIp(wanted.last)}`;

/** The set's key among the pool's ranges (rangeOwner), in its workload's cluster. */
export const ipSetRangeOwner = (ref: IpSetRef) => rangeOwner(clusterOf(ref), ref.namespace, ipSetRangeName(ref));

/** Whether this pool holds the set: the workload's first pod, or a concurrent one, reserved it here. */
export const holdsIpSet = (pool: PoolView, ref: IpSetRef) => pool.ranges.has(ipSetRangeOwner(ref));

/**
 * The set's range in this pool, reserved like a StatefulSet's (free-range-finder.ts): `size`
 * addresses first fit, or exactly `first..last` when it lies in the pool and is all free. Null when
 * it does not fit here (the caller tries the next eligible pool). Read-only on the state.
 */
export function decideReserveIpSet(pool: PoolView, ref: IpSetRef, wanted: IpSetWanted): RangeReserved | null {
  if (!pool.exists || !pool.cidr || pool.disabled || holdsIpSet(pool, ref)) return null;
  const family = pool.cidr.family;
  let range: { start: bigint; end: bigint } | null;
  if ('size' in wanted) range = findFreeRange(pool, BigInt(wanted.size));
  else if (wanted.first.family !== family || !isFreeSpan(pool, wanted.first.value, wanted.last.value)) range = null;
  else range = { start: wanted.first.value, end: wanted.last.value };
  if (!range) return null;
  const show = (value: bigint) => formatIp({ family, value });
  return {
    type: 'RangeReserved',
    data: {
      pool: pool.name,
      namespace: ref.namespace,
      name: ipSetRangeName(ref),
      ...inCluster(clusterOf(ref)),
      start: show(range.start),
      end: show(range.end),
      ...inNetwork(pool),
    },
  };
}

/** Why this pool could not hold the set, for the refusal: its largest free run against the size, or the range not all free. */
export function ipSetMisfit(pool: PoolView, wanted: IpSetWanted): string {
  if (pool.disabled) return 'disabled';
  if (!('size' in wanted)) return 'not all of the range is free in it';
  const run = pool.cidr ? largestFreeRun(pool) : null;
  return run ? `largest free run ${run.length} from ${formatIp({ family: pool.cidr!.family, value: run.start })}` : 'no free address';
}

/** No eligible pool could hold the set (IP_SET_NOT_RESERVED, refused for that pod, 409): each pool tried, and why not. */
export function ipSetRefusal(ref: IpSetRef, wanted: IpSetWanted, tried: ReadonlyArray<{ pool: string; why?: string }>): DomainError {
  const pools = tried.length ? tried.map(({ pool, why }) => `${pool} (${why ?? 'full'})`).join(', ') : 'no eligible pool of its family';
  return new DomainError('IP_SET_NOT_RESERVED', `the ip-set ${describeWanted(wanted)} of ${describe(ref)} could not be reserved: ${pools}`);
}

/**
 * A pod's address in its workload's set: the lowest of the set that no pod holds. The set's
 * addresses stay reserved when released (exempt from the reuse delay), so a rollout's new pods get
 * the old pods' addresses. A set with every address held refuses with IP_SET_FULL: a surge pod
 * waits (503, kubelet retries) until an old pod's DEL.
 */
export function ipSetAddress(pool: PoolView, ref: IpSetRef): bigint {
  const range = pool.ranges.get(ipSetRangeOwner(ref));
  // the set was read in this pool: released since (its workload deleted), the pod decides again
  if (!range) throw new DomainError('CONCURRENCY_CONFLICT', `${describe(ref)} has no ip-set in pool "${pool.name}" any more`);
  const ip = pool.heldSet.firstGap(range.start, range.end);
  if (ip === null) {
    const family = pool.cidr?.family ?? 4;
    const show = (value: bigint) => formatIp({ family, value });
    throw new DomainError(
      'IP_SET_FULL',
      `every address of the ip-set ${show(range.start)}-${show(range.end)} of ${describe(ref)} in pool "${pool.name}" is held; ` +
        'retry once one of its pods is deleted',
    );
  }
  return ip;
}
