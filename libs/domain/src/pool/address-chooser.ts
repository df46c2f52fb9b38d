import { cidrContains, formatCidr, formatIp, type Cidr } from '@ipledger/ip';
import { DomainError } from '../errors/domain-error';
import type { AddressRange, PoolView } from './pool-state';
import { describeRangeOwner } from './range-owner';

/**
 * How an address is chosen inside one pool: the requested one if it is free, else the lowest free
 * address of the usable span (first fit). First fit keeps allocations packed at the bottom of the
 * pool, which keeps the used-range set small and leaves the top free for continuous ranges.
 * The span already excludes IPv4 network and broadcast; `used` holds reserved, allocated and
 * range addresses. A range address goes only to a pod of the StatefulSet or ip-set workload that owns it.
 *
 * Reuse delay: `used` also holds the addresses released less than reuseDelaySeconds ago (as the
 * log's times tell), so they go out again only when nothing else is free, and then only the oldest
 * once its delay has passed by `now`, the decision's time on the database's clock (absent: only
 * the log's times count, which is never early). A requested address (a StatefulSet ordinal's own,
 * or one asked for by name) is exempt: its pod must get it back.
 * `span` is the part of the pool to choose in: all of it, or the node's block in a pool with blocks.
 */
export function chooseAddress(
  pool: PoolView & { cidr: Cidr },
  requested?: bigint,
  /** the requesting pod's range key (rangeOwner) when it is a StatefulSet's: its own range's addresses are its to take */
  statefulSetOwner?: string,
  now?: number,
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
    if (owner !== undefined && owner !== statefulSetOwner) {
      throw new DomainError('IP_RESERVED', `${show(requested)} is reserved for the pods of ${describeRangeOwner(owner)}`);
    }
    const holder = pool.holders.get(requested);
    if (holder) throw new DomainError('IP_IN_USE', `${show(requested)} is already held by handle "${holder.handle}"`);
    return requested;
  }
  // a pool with blocks narrows the span to a node's block (block-planner.ts); first fit inside it
  const ip = pool.used.firstGap(span.start, span.end);
  if (ip !== null) return ip;
  const oldest = firstCooling(pool);
  if (oldest && now !== undefined && oldest.freeAt <= now && oldest.ip >= span.start && oldest.ip <= span.end) return oldest.ip;
  const cooling = coolingNote(pool);
  throw new DomainError('POOL_EXHAUSTED', `pool "${pool.name}" has no free address${cooling ? `: ${cooling}` : ''}`);
}

function firstCooling(pool: PoolView): { ip: bigint; freeAt: number } | null {
  const first = pool.cooling.first();
  if (first) return { ip: first.ip, freeAt: first.releasedAt + pool.reuseDelaySeconds * 1000 };
  return null;
}

/** How many addresses of the pool are cooling down and when the first is free again; null when none is. */
export function coolingNote(pool: PoolView): string | null {
  const oldest = firstCooling(pool);
  if (!oldest) return null;
  const when = Number.isFinite(oldest.freeAt)
    ? `at ${new Date(oldest.freeAt).toISOString()}`
    : `${pool.reuseDelaySeconds} s after its release is recorded`;
  return `${pool.cooling.size} address(es) cooling down after release (reuseDelaySeconds ${pool.reuseDelaySeconds}), the first free again ${when}`;
}
