import { cidrFirst, cidrLast, type Cidr } from '@ipledger/ip';

/** The addresses a pool can hand out: IPv4 subnets shorter than /31 lose network and broadcast (RFC 3021 exempts /31). */
export function usableSpan(cidr: Cidr): [bigint, bigint] {
  const first = cidrFirst(cidr);
  const last = cidrLast(cidr);
  return cidr.family === 4 && cidr.prefixLength < 31 ? [first + 1n, last - 1n] : [first, last];
}
