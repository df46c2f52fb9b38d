import fc from 'fast-check';
import { cidrsOverlap, formatCidr, parseCidr } from '@ipledger/ip';
import { firstOverlap, poolsOverlap, sameNetwork } from './pool-overlap';

describe('firstOverlap', () => {
  it('finds nested and equal CIDRs, and none among disjoint or other-family ones', () => {
    expect(
      firstOverlap([
        { name: 'a', cidr: '10.0.0.0/16' },
        { name: 'b', cidr: '10.0.5.0/24' },
      ])?.map((p) => p.name),
    ).toEqual(['a', 'b']);
    expect(
      firstOverlap([
        { name: 'a', cidr: '10.0.0.0/24' },
        { name: 'b', cidr: '10.0.0.0/24' },
      ]),
    ).not.toBeNull();
    expect(
      firstOverlap([
        { name: 'a', cidr: '10.0.0.0/25' },
        { name: 'b', cidr: '10.0.0.128/25' },
        { name: 'c', cidr: 'fd00::/8' },
      ]),
    ).toBeNull();
  });

  it('counts an IPv4 address and its IPv4-mapped IPv6 form as one address', () => {
    const overlap = (a: string, b: string) =>
      firstOverlap([
        { name: 'a', cidr: a },
        { name: 'b', cidr: b },
      ])?.map((p) => p.name) ?? null;
    expect(overlap('10.10.0.0/24', '::ffff:10.10.0.0/120')).toEqual(['a', 'b']);
    expect(overlap('10.10.0.0/24', '::ffff:10.10.0.128/121')).not.toBeNull();
    expect(overlap('10.10.0.0/24', '::/0')).not.toBeNull();
    expect(overlap('0.0.0.0/0', '::ffff:0:0/96')).not.toBeNull();
    expect(overlap('10.10.0.0/24', '::ffff:10.10.1.0/120')).toBeNull();
    // 10.10.0.0 written below ::ffff:0:0/96 is another address (IPv4-compatible, long deprecated)
    expect(overlap('10.10.0.0/24', '::10.10.0.0/120')).toBeNull();
    expect(poolsOverlap(parseCidr('::ffff:10.10.0.0/120'), parseCidr('10.10.0.5/32'))).toBe(true);
    expect(poolsOverlap(parseCidr('10.10.0.0/24'), parseCidr('fd00::/8'))).toBe(false);
  });

  it('agrees with comparing every pair', () => {
    const cidr = fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 24, max: 32 })).map(([octet, prefix]) => {
      const network = (BigInt(octet) << 8n) & (((1n << 32n) - 1n) << BigInt(32 - prefix));
      return formatCidr({ family: 4, network: 0x0a000000n | network, prefixLength: prefix });
    });
    fc.assert(
      fc.property(fc.array(cidr, { maxLength: 12 }), (cidrs) => {
        const pools = cidrs.map((c, i) => ({ name: `p${i}`, cidr: c }));
        const naive = pools.some((a, i) => pools.some((b, j) => i < j && cidrsOverlap(parseCidr(a.cidr), parseCidr(b.cidr))));
        const found = firstOverlap(pools);
        expect(found !== null).toBe(naive);
        if (found) expect(cidrsOverlap(parseCidr(found[0].cidr), parseCidr(found[1].cidr))).toBe(true);
      }),
    );
  });

  it('finds overlaps within one network only: isolated networks may reuse the same CIDRs', () => {
    const names = (pools: Array<{ name: string; cidr: string; network?: string | null }>) =>
      firstOverlap(pools)?.map((p) => p.name) ?? null;
    expect(
      names([
        { name: 'blue', cidr: '10.0.0.0/24', network: 'blue' },
        { name: 'red', cidr: '10.0.0.0/24', network: 'red' },
        { name: 'shared', cidr: '10.0.0.0/16' },
      ]),
    ).toBeNull();
    // absent and null are one network, the shared space
    expect(
      names([
        { name: 'a', cidr: '10.0.0.0/16', network: null },
        { name: 'b', cidr: '10.0.5.0/24' },
      ]),
    ).toEqual(['a', 'b']);
    // a pool of another network between two of one network does not hide their overlap
    expect(
      names([
        { name: 'blue-1', cidr: '10.0.0.0/16', network: 'blue' },
        { name: 'red-1', cidr: '10.0.1.0/24', network: 'red' },
        { name: 'blue-2', cidr: '10.0.2.0/24', network: 'blue' },
      ]),
    ).toEqual(['blue-1', 'blue-2']);
    expect(sameNetwork({ network: 'blue' }, { network: 'red' })).toBe(false);
    expect(sameNetwork({}, { network: null })).toBe(true);
  });

  it('agrees with comparing every pair of the same network', () => {
    const pool = fc.tuple(fc.integer({ min: 0, max: 15 }), fc.integer({ min: 28, max: 32 }), fc.constantFrom(undefined, null, 'a', 'b'));
    fc.assert(
      fc.property(fc.array(pool, { maxLength: 12 }), (specs) => {
        const pools = specs.map(([octet, prefix, network], i) => ({
          name: `p${i}`,
          cidr: formatCidr({
            family: 4,
            network: 0x0a000000n | (BigInt(octet) & (((1n << 32n) - 1n) << BigInt(32 - prefix))),
            prefixLength: prefix,
          }),
          network,
        }));
        const naive = pools.some((a, i) =>
          pools.some((b, j) => i < j && sameNetwork(a, b) && cidrsOverlap(parseCidr(a.cidr), parseCidr(b.cidr))),
        );
        const found = firstOverlap(pools);
        expect(found !== null).toBe(naive);
        if (found) expect(sameNetwork(found[0], found[1])).toBe(true);
      }),
    );
  });
});
