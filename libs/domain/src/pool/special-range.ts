import { cidrsOverlap, formatCidr, parseCidr, type Cidr } from '@ipledger/ip';
import { DomainError } from '../errors/domain-error';

/**
 * Ranges no pod address belongs in: a pool there hands out addresses the kernel treats as its own
 * (loopback, unspecified), never routes (link-local), delivers to groups (multicast), or that
 * stand for an IPv4 address already (IPv4-mapped IPv6, which pool-overlap.ts keeps from being
 * held twice). The whole space of a family covers all of them.
 */
const SPECIAL_RANGES: ReadonlyArray<{ cidr: Cidr; what: string }> = [
  ['0.0.0.0/8', 'unspecified ("this network")'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['224.0.0.0/4', 'multicast'],
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::ffff:0:0/96', 'IPv4-mapped IPv6'],
  ['fe80::/10', 'link-local'],
  ['ff00::/8', 'multicast'],
].map(([cidr, what]) => ({ cidr: parseCidr(cidr), what }));

/** What makes a CIDR special, in words, or null when it lies clear of every special range. */
export function specialRangeOf(cidr: Cidr): string | null {
  if (cidr.prefixLength === 0) return `the whole IPv${cidr.family} address space`;
  const range = SPECIAL_RANGES.find((special) => cidrsOverlap(special.cidr, cidr));
  return range ? `in or over the ${range.what} range ${formatCidr(range.cidr)}` : null;
}

/** A pool's CIDR in or over a special range is refused (SPECIAL_RANGE) unless the pool allows it. */
export function refuseSpecialRange(pool: string, cidr: Cidr, allowSpecialRanges: boolean): void {
  const special = specialRangeOf(cidr);
  if (special && !allowSpecialRanges) {
    throw new DomainError(
      'SPECIAL_RANGE',
      `pool "${pool}": ${formatCidr(cidr)} is ${special}, which no pod address belongs in; set allowSpecialRanges: true to make such a pool anyway`,
    );
  }
}
