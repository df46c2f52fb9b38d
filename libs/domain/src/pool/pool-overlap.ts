import { cidrFirst, cidrLast, parseCidr } from '@ipledger/ip';

/**
 * The first two pools of a list whose CIDRs overlap, or null. Sorting by first address makes any
 * overlap show between neighbours (CIDRs nest or are disjoint), so this is O(n log n).
 */
export function firstOverlap<P extends { name: string; cidr: string }>(pools: readonly P[]): [P, P] | null {
  const spans = pools
    .map((pool) => ({ pool, cidr: parseCidr(pool.cidr) }))
    .map(({ pool, cidr }) => ({ pool, family: cidr.family, first: cidrFirst(cidr), last: cidrLast(cidr) }))
    .sort((a, b) => a.family - b.family || (a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
  for (let i = 1; i < spans.length; i++) {
    const [a, b] = [spans[i - 1], spans[i]];
    if (a.family === b.family && b.first <= a.last) return [a.pool, b.pool];
  }
  return null;
}
