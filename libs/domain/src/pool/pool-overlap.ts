import { cidrFirst, cidrLast, parseCidr, type Cidr } from '@ipledger/ip';

/** ::ffff:0:0/96, where IPv6 writes IPv4 addresses (RFC 4291 2.5.5.2). */
const IPV4_MAPPED = 0xffffn << 32n;

/**
 * A CIDR's addresses in one space for both families: IPv6 as it is, IPv4 as its IPv4-mapped IPv6
 * form. An IPv4 address and its mapped form are one address, so two pools that hold them overlap
 * (the pools read model's exclusion constraint maps them the same way, migration 029).
 */
function span(cidr: Cidr): [bigint, bigint] {
  const offset = cidr.family === 4 ? IPV4_MAPPED : 0n;
  return [offset + cidrFirst(cidr), offset + cidrLast(cidr)];
}

/** Whether two pools' CIDRs share an address, an IPv4 address and its IPv4-mapped IPv6 form counting as one. */
export function poolsOverlap(a: Cidr, b: Cidr): boolean {
  const [[aFirst, aLast], [bFirst, bLast]] = [span(a), span(b)];
  return aFirst <= bLast && bFirst <= aLast;
}

/**
 * Whether two pools are in one address space: the same isolated network, or both in none (the
 * shared space). Pools of different networks may hold the same addresses (VRFs, tenant overlays).
 */
export const sameNetwork = (a: { network?: string | null }, b: { network?: string | null }): boolean =>
  (a.network ?? null) === (b.network ?? null);

/**
 * The first two pools of a list, in one network, whose CIDRs overlap (poolsOverlap), or null.
 * Sorting by network, then first address makes any overlap show between neighbours (CIDRs nest or
 * are disjoint, also across the mapping), so this is O(n log n).
 */
export function firstOverlap<P extends { name: string; cidr: string; network?: string | null }>(pools: readonly P[]): [P, P] | null {
  const spans = pools
    .map((pool) => ({ pool, network: pool.network ?? '', span: span(parseCidr(pool.cidr)) }))
    .sort((a, b) =>
      a.network !== b.network ? (a.network < b.network ? -1 : 1) : a.span[0] < b.span[0] ? -1 : a.span[0] > b.span[0] ? 1 : 0,
    );
  for (let i = 1; i < spans.length; i++) {
    const [a, b] = [spans[i - 1], spans[i]];
    if (a.network === b.network && b.span[0] <= a.span[1]) return [a.pool, b.pool];
  }
  return null;
}
