import fc from 'fast-check';
import {
  type Cidr,
  cidrContains,
  cidrFirst,
  cidrLast,
  cidrSize,
  cidrsOverlap,
  formatCidr,
  IpFormatError,
  parseCidr,
  parseIp,
} from '@ipledger/ip';

function parseError(text: string): IpFormatError {
  try {
    parseCidr(text);
  } catch (error) {
    if (error instanceof IpFormatError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('parseCidr', () => {
  it.each([
    ['10.0.0.0/8', { family: 4, network: 0x0a000000n, prefixLength: 8 }],
    ['0.0.0.0/0', { family: 4, network: 0n, prefixLength: 0 }],
    ['10.1.2.3/32', { family: 4, network: 0x0a010203n, prefixLength: 32 }],
    ['::/0', { family: 6, network: 0n, prefixLength: 0 }],
    ['FD00:0:0::/64', { family: 6, network: 0xfd00n << 112n, prefixLength: 64 }],
    ['::1/128', { family: 6, network: 1n, prefixLength: 128 }],
  ])('parses %s', (text, cidr) => {
    expect(parseCidr(text)).toEqual(cidr);
  });

  it.each([
    ['10.0.0.1/24', '"10.0.0.1/24" is not a network address: did you mean "10.0.0.0/24"?'],
    ['fd00::1/64', '"fd00::1/64" is not a network address: did you mean "fd00::/64"?'],
    ['10.0.0.0/33', '"10.0.0.0/33": prefix length 33 is out of range (0-32 for IPv4)'],
    ['::1/129', '"::1/129": prefix length 129 is out of range (0-128 for IPv6)'],
    [
      '10.0.0.0/99999999999999999999',
      '"10.0.0.0/99999999999999999999": prefix length 99999999999999999999 is out of range (0-32 for IPv4)',
    ],
    ['10.0.0.0', '"10.0.0.0": a prefix length is missing, as in "10.0.0.0/24" or "fd00::/64"'],
    ['10.0.0.0/', '"10.0.0.0/": prefix length "" is not a decimal number'],
    ['10.0.0.0/x', '"10.0.0.0/x": prefix length "x" is not a decimal number'],
    ['10.0.0.0/8/8', '"10.0.0.0/8/8": prefix length "8/8" is not a decimal number'],
    ['10.0.0.0/08', '"10.0.0.0/08": prefix length must not have leading zeros'],
    ['300.0.0.0/8', '"300.0.0.0/8": "300.0.0.0" is not a valid IPv4 address: octet 300 is above 255'],
    ['/8', '"/8": "" is not an IP address'],
  ])('rejects %j', (text, message) => {
    const error = parseError(text);
    expect(error.kind).toBe('cidr');
    expect(error.message).toBe(message);
  });
});

describe('cidr arithmetic', () => {
  it.each([
    ['10.0.0.0/24', '10.0.0.0/24', 0x0a000000n, 0x0a0000ffn, 256n],
    ['10.0.0.7/32', '10.0.0.7/32', 0x0a000007n, 0x0a000007n, 1n],
    ['0.0.0.0/0', '0.0.0.0/0', 0n, (1n << 32n) - 1n, 1n << 32n],
    ['fd00:0::/64', 'fd00::/64', 0xfd00n << 112n, (0xfd00n << 112n) + (1n << 64n) - 1n, 1n << 64n],
    ['::/0', '::/0', 0n, (1n << 128n) - 1n, 1n << 128n],
  ])('%s', (text, formatted, first, last, size) => {
    const cidr = parseCidr(text);
    expect(formatCidr(cidr)).toBe(formatted);
    expect([cidrFirst(cidr), cidrLast(cidr), cidrSize(cidr)]).toEqual([first, last, size]);
  });

  it('contains addresses of its own family only', () => {
    const cidr = parseCidr('10.0.0.0/24');
    expect(cidrContains(cidr, parseIp('10.0.0.0'))).toBe(true);
    expect(cidrContains(cidr, parseIp('10.0.0.255'))).toBe(true);
    expect(cidrContains(cidr, parseIp('10.0.1.0'))).toBe(false);
    expect(cidrContains(cidr, parseIp('9.255.255.255'))).toBe(false);
    expect(cidrContains(cidr, { family: 6, value: 0x0a000001n })).toBe(false);
  });

  it('never overlaps across families', () => {
    expect(cidrsOverlap(parseCidr('0.0.0.0/0'), parseCidr('::/0'))).toBe(false);
  });
});

/** Small blocks inside 10.0.0.0/22, so overlap can be checked by enumerating addresses. */
const smallCidr = fc
  .record({ offset: fc.integer({ min: 0, max: 1023 }), prefixLength: fc.integer({ min: 22, max: 32 }) })
  .map(({ offset, prefixLength }): Cidr => {
    const hostBits = BigInt(32 - prefixLength);
    return { family: 4, network: ((0x0a000000n + BigInt(offset)) >> hostBits) << hostBits, prefixLength };
  });

const anyCidr = fc
  .record({ family: fc.constantFrom(4 as const, 6 as const), seed: fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), length: fc.nat(128) })
  .map(({ family, seed, length }): Cidr => {
    const bits = family === 4 ? 32 : 128;
    const prefixLength = length % (bits + 1);
    const hostBits = BigInt(bits - prefixLength);
    return { family, network: ((seed >> BigInt(128 - bits)) >> hostBits) << hostBits, prefixLength };
  });

describe('properties', () => {
  it('cidrsOverlap agrees with enumerating shared addresses', () => {
    fc.assert(
      fc.property(smallCidr, smallCidr, (a, b) => {
        let shared = false;
        for (let value = cidrFirst(a); value <= cidrLast(a) && !shared; value++) {
          shared = cidrContains(b, { family: 4, value });
        }
        expect(cidrsOverlap(a, b)).toBe(shared);
        expect(cidrsOverlap(b, a)).toBe(shared);
      }),
    );
  });

  it('format/parse round-trips', () => {
    fc.assert(
      fc.property(anyCidr, (cidr) => {
        expect(parseCidr(formatCidr(cidr))).toEqual(cidr);
      }),
    );
  });
});
