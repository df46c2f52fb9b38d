import { cidrContains, cidrFirst, cidrLast, formatCidr, parseIpRange, type Cidr } from '@ipledger/ip';
import { DomainError, InvalidInputError } from '../errors/domain-error';
import type { PoolResized } from '../events';
import { blockCidr, blockedPool, type BlockedPoolView } from './block-planner';
import { existing } from './existing-pool';
import { poolAddress } from './pool-address';
import { MAX_BLOCK_BITS } from './pool-blocks';
import type { PoolView } from './pool-state';
import { describeRangeOwner } from './range-owner';
import { refuseSpecialRange } from './special-range';
import { usableSpan } from './usable-span';

/**
 * The pool's CIDR changed in place: to a network that contains it (grow) or to one inside it
 * (shrink), of the same family. Every address held, reserved, in a StatefulSet range or the
 * gateway must stay among those the new CIDR can hand out (never its network or broadcast
 * address); otherwise POOL_IN_USE names the lowest one in the way. Cooling addresses are free and
 * never stop it. Null when the CIDR is the same. A grow into a special range needs
 * `allowSpecialRanges` (the pool's own, unless the same patch sets it). Overlap with other pools is
 * the read model's exclusion constraint's to catch, across pools and replicas (see the handler).
 */
export function decideResizePool(
  state: PoolView,
  name: string,
  cidr: Cidr,
  allowSpecialRanges = state.allowSpecialRanges,
): PoolResized | null {
  const pool = existing(state, name);
  const from = pool.cidr;
  const text = formatCidr(cidr);
  if (cidr.family !== from.family) {
    throw new InvalidInputError('INVALID_CIDR', `pool "${name}" is IPv${from.family} (${formatCidr(from)}); it cannot become ${text}`);
  }
  if (text === formatCidr(from)) return null;
  refuseSpecialRange(name, cidr, allowSpecialRanges);
  const nested =
    cidr.prefixLength < from.prefixLength
      ? cidrContains(cidr, { family: from.family, value: cidrFirst(from) })
      : cidrContains(from, { family: cidr.family, value: cidrFirst(cidr) });
  if (!nested) {
    throw new DomainError(
      'CIDR_NOT_NESTED',
      `pool "${name}" has cidr ${formatCidr(from)}; it can grow to a network that contains it or shrink to one inside it, and ${text} is neither`,
    );
  }
  const withBlocks = blockedPool(pool);
  if (withBlocks) checkBlocksFit(withBlocks, cidr);
  const blocker = firstAddressInTheWay(pool, cidr);
  if (blocker !== null) {
    throw new DomainError(
      'POOL_IN_USE',
      `pool "${name}" cannot become ${text}: ${poolAddress(pool, blocker)} ${whatHolds(pool, blocker)} and lies outside the addresses ${text} hands out`,
    );
  }
  return { type: 'PoolResized', data: { name, previousCidr: formatCidr(from), cidr: text } };
}

/**
 * A pool with blocks keeps them across a resize: blocks are aligned to their own size, so the
 * claimed ones stay where they are when the pool grows. The new CIDR must still hold blocks within
 * the limit on their number, and a shrink may not cut off a claimed block, empty or not.
 */
function checkBlocksFit(pool: BlockedPoolView, cidr: Cidr): void {
  const text = formatCidr(cidr);
  const { blockSize } = pool.blocks;
  if (cidr.prefixLength >= blockSize || blockSize - cidr.prefixLength > MAX_BLOCK_BITS) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `pool "${pool.name}" has blockSize ${blockSize}; ${text} must be a network from /${blockSize - MAX_BLOCK_BITS} to /${blockSize - 1} (at most 2^${MAX_BLOCK_BITS} blocks)`,
    );
  }
  const outside = [...pool.claimed.values()]
    .filter((block) => !cidrContains(cidr, { family: cidr.family, value: block.first }))
    .sort((a, b) => (a.first < b.first ? -1 : 1))[0];
  if (outside) {
    throw new DomainError(
      'POOL_IN_USE',
      `pool "${pool.name}" cannot become ${text}: block ${blockCidr(pool, outside.first)} of node "${outside.node}" lies outside it (${outside.used} address(es) held)`,
    );
  }
}

/** The lowest address held, reserved, in a range or the gateway that `cidr` could not hand out, or null. */
function firstAddressInTheWay(pool: PoolView & { cidr: Cidr }, cidr: Cidr): bigint | null {
  const [first, last] = usableSpan(cidr);
  const below: [bigint, bigint] = [cidrFirst(pool.cidr), first - 1n];
  const above: [bigint, bigint] = [last + 1n, cidrLast(pool.cidr)];
  const found: bigint[] = [];
  for (const set of [pool.heldSet, pool.rangeSet, pool.reservedSet]) {
    for (const [from, to] of [below, above]) {
      const ip = set.firstIn(from, to);
      if (ip !== null) found.push(ip);
    }
  }
  // a reserved entry also counts where the old span left it out (a network or broadcast address)
  for (const entry of pool.reserved) {
    const range = parseIpRange(entry);
    if (range.first < cidrFirst(cidr)) found.push(range.first);
    else if (range.last > cidrLast(cidr)) found.push(range.first > cidrLast(cidr) ? range.first : cidrLast(cidr) + 1n);
  }
  return found.reduce<bigint | null>((lowest, ip) => (lowest === null || ip < lowest ? ip : lowest), null);
}

function whatHolds(pool: PoolView & { cidr: Cidr }, ip: bigint): string {
  const holder = pool.holders.get(ip);
  if (holder) return `is held by handle "${holder.handle}" (pod ${holder.namespace}/${holder.pod})`;
  if (ip === pool.gateway) return 'is the gateway';
  const owner = [...pool.ranges].find(([, range]) => range.start <= ip && ip <= range.end)?.[0];
  if (owner !== undefined) return `is in the range of ${describeRangeOwner(owner)}`;
  return 'is reserved';
}
