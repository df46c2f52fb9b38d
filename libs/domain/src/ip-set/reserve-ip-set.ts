import { formatIp } from '@ipledger/ip';
import { DomainError } from '../errors/domain-error';
import type { RangeReserved } from '../events';
import { findFreeRange, isFreeSpan, largestFreeRun } from '../pool/free-range-finder';
import type { PoolView } from '../pool/pool-state';
import { rangeOwner } from '../pool/range-owner';
import { ipSetRangeName, type IpSetRef, type IpSetWanted } from './ip-set';

const describe = (ref: IpSetRef) => `${ref.kind} ${ref.namespace}/${ref.name}`;

/** Whether this pool already holds the set: a concurrent first pod of the workload reserved it. */
export const holdsIpSet = (pool: PoolView, ref: IpSetRef) => pool.ranges.has(rangeOwner(ref.namespace, ipSetRangeName(ref)));

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
    data: { pool: pool.name, namespace: ref.namespace, name: ipSetRangeName(ref), start: show(range.start), end: show(range.end) },
  };
}

/** Why no eligible pool could hold the set: its size, or its range, against what the pools had free. */
export function ipSetRefusal(ref: IpSetRef, wanted: IpSetWanted, pools: readonly PoolView[]): DomainError {
  if (!('size' in wanted)) {
    const range = `${formatIp(wanted.first)}-${formatIp(wanted.last)}`;
    return new DomainError(
      'IP_SET_NOT_RESERVED',
      `the ip-set ${range} of ${describe(ref)} could not be reserved: no eligible pool has all of it free`,
    );
  }
  let largest: { pool: string; length: bigint; start: string } | null = null;
  for (const pool of pools) {
    const run = pool.cidr ? largestFreeRun(pool) : null;
    if (run && (!largest || run.length > largest.length)) {
      largest = { pool: pool.name, length: run.length, start: formatIp({ family: pool.cidr!.family, value: run.start }) };
    }
  }
  const runs = largest
    ? `the largest free run is ${largest.length} addresses from ${largest.start} in pool "${largest.pool}"`
    : 'no eligible pool has a free address';
  return new DomainError(
    'IP_SET_NOT_RESERVED',
    `the ip-set of ${wanted.size} addresses of ${describe(ref)} could not be reserved: ${runs}`,
  );
}

/**
 * A pod's address in its workload's set: the lowest of the set that no pod holds. The set's
 * addresses stay reserved when released (exempt from the reuse delay), so a rollout's new pods get
 * the old pods' addresses. A set with every address held refuses with IP_SET_FULL: a surge pod
 * waits (503, kubelet retries) until an old pod is deleted.
 */
export function ipSetAddress(pool: PoolView, ref: IpSetRef): bigint {
  const range = pool.ranges.get(rangeOwner(ref.namespace, ipSetRangeName(ref)));
  if (!range) throw new DomainError('IP_SET_NOT_RESERVED', `${describe(ref)} has no ip-set in pool "${pool.name}"`);
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
