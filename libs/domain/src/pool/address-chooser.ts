import { cidrContains, formatCidr, formatIp, type Cidr } from '@ipledger/ip';
import { DomainError } from '../errors/domain-error';
import type { StatefulSetRef } from '../events';
import type { AddressRange, PoolView } from './pool-state';
import { rangeOwner } from './range-owner';

/**
 * How an address is chosen inside one pool: the requested one if it is free, else the lowest free
 * address of the usable span (first fit). First fit keeps allocations packed at the bottom of the
 * pool, which keeps the used-range set small and leaves the top free for continuous ranges.
 * The span already excludes IPv4 network and broadcast; `used` holds reserved, allocated and
 * StatefulSet range addresses. A range address goes only to a pod of the StatefulSet that owns it.
 * `span` is the part of the pool to choose in: all of it, or the node's block in a pool with blocks.
 */
export function chooseAddress(
  pool: PoolView & { cidr: Cidr },
  requested?: bigint,
  statefulSet?: StatefulSetRef,
  span: AddressRange = { start: pool.usableFirst, end: pool.usableLast },
): bigint {
  const show = (value: bigint) => formatIp({ family: pool.cidr.family, value });
  if (requested !== undefined) {
    if (!cidrContains(pool.cidr, { family: pool.cidr.family, value: requested })) {
      throw new DomainError('IP_NOT_IN_POOL', `${show(requested)} is not inside pool "${pool.name}" (${formatCidr(pool.cidr)})`);
    }
    if (requested < pool.usableFirst || requested > pool.usableLast) {
      throw new DomainError('IP_NOT_IN_POOL', `${show(requested)} is the network or broadcast address of pool "${pool.name}"`);
    }
    if (requested === pool.gateway) throw new DomainError('IP_RESERVED', `${show(requested)} is the gateway of pool "${pool.name}"`);
    if (pool.reservedSet.has(requested)) {
      throw new DomainError('IP_RESERVED', `${show(requested)} is reserved in pool "${pool.name}"`);
    }
    const owner = [...pool.ranges].find(([, range]) => range.start <= requested && requested <= range.end)?.[0];
    if (owner !== undefined && owner !== (statefulSet && rangeOwner(statefulSet.namespace, statefulSet.name))) {
      throw new DomainError('IP_RESERVED', `${show(requested)} is reserved for the pods of StatefulSet ${owner}`);
    }
    const holder = pool.holders.get(requested);
    if (holder) throw new DomainError('IP_IN_USE', `${show(requested)} is already held by handle "${holder.handle}"`);
    return requested;
  }
  // a pool with blocks narrows the span to a node's block (block-planner.ts); first fit inside it
  const ip = pool.used.firstGap(span.start, span.end);
  if (ip === null) throw new DomainError('POOL_EXHAUSTED', `pool "${pool.name}" has no free address`);
  return ip;
}
