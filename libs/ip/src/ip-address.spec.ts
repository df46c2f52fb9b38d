import { isIP } from 'node:net';
import fc from 'fast-check';
import { canonicalIp, formatIp, IpFormatError, parseIp } from '@ipledger/ip';

const V4_MAX = (1n << 32n) - 1n;
const V6_MAX = (1n << 128n) - 1n;

function parseError(text: string): IpFormatError {
  try {
    parseIp(text);
  } catch (error) {
    if (error instanceof IpFormatError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

/** Node's URL parser serialises IPv6 hosts the RFC 5952 way, so it is an independent oracle. */
function urlCanonical(text: string): string {
  return new URL(`http://[${text}]/`).hostname.slice(1, -1);
}

describe('parseIp', () => {
  it.each([
    ['0.0.0.0', 4, 0n],
    ['255.255.255.255', 4, V4_MAX],
    ['10.1.2.3', 4, 0x0a010203n],
    ['::', 6, 0n],
    ['::1', 6, 1n],
    ['1::', 6, 1n << 112n],
    ['::ffff:1.2.3.4', 6, 0xffff01020304n],
    ['::1.2.3.4', 6, 0x01020304n],
    ['1:2:3:4:5:6:1.2.3.4', 6, 0x0001000200030004000500060102_0304n],
    ['2001:DB8::Ab', 6, 0x20010db80000000000000000000000abn],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', 6, 0x20010db8000000000000000000000001n],
    ['1:2:3:4:5:6:7::', 6, 0x00010002000300040005000600070000n],
    ['::2:3:4:5:6:7:8', 6, 0x00000002000300040005000600070008n],
  ])('parses %s', (text, family, value) => {
    expect(parseIp(text)).toEqual({ family, value });
  });

  it.each([
    ['abc', '"abc" is not an IP address'],
    ['', '"" is not an IP address'],
    ['10', '"10" is not an IP address'],
    ['010.0.0.1', '"010.0.0.1" is not a valid IPv4 address: octets must not have leading zeros'],
    ['300.1.1.1', '"300.1.1.1" is not a valid IPv4 address: octet 300 is above 255'],
    ['1.2.3', '"1.2.3" is not a valid IPv4 address: expected 4 decimal octets separated by dots, found 3'],
    ['1.2.3.4.5', '"1.2.3.4.5" is not a valid IPv4 address: expected 4 decimal octets separated by dots, found 5'],
    ['1..3.4', '"1..3.4" is not a valid IPv4 address: an octet is empty'],
    ['1.2.3.x', '"1.2.3.x" is not a valid IPv4 address: octet "x" is not a decimal number'],
    ['1.2.3.+4', '"1.2.3.+4" is not a valid IPv4 address: octet "+4" is not a decimal number'],
    [' 10.0.0.1', '" 10.0.0.1" is not an IP address: it contains whitespace'],
    ['::1\n', '"::1\\n" is not an IP address: it contains whitespace'],
    ['[::1]', '"[::1]" is not a valid IPv6 address: remove the brackets'],
    ['fe80::1%eth0', '"fe80::1%eth0" is not a valid IPv6 address: zone ids ("%" suffixes) are not supported'],
    ['1::2::3', '"1::2::3" is not a valid IPv6 address: "::" may appear only once'],
    [':::', '":::" is not a valid IPv6 address: a group is empty (look for a stray ":")'],
    [':1::', '":1::" is not a valid IPv6 address: a group is empty (look for a stray ":")'],
    ['1:2:3:4:5:6:7:', '"1:2:3:4:5:6:7:" is not a valid IPv6 address: a group is empty (look for a stray ":")'],
    ['12345::', '"12345::" is not a valid IPv6 address: group "12345" has more than 4 hex digits'],
    ['::g', '"::g" is not a valid IPv6 address: group "g" is not hexadecimal'],
    ['1:2:3', '"1:2:3" is not a valid IPv6 address: expected 8 groups, found 3 (use "::" for a run of zero groups)'],
    [
      '1:2:3:4:5:6:7:8:9',
      '"1:2:3:4:5:6:7:8:9" is not a valid IPv6 address: expected 8 groups, found 9 (use "::" for a run of zero groups)',
    ],
    [
      '1:2:3:4::5:6:7:8',
      '"1:2:3:4::5:6:7:8" is not a valid IPv6 address: "::" must stand for at least one zero group, but 8 groups are given',
    ],
    [
      '1:2:3:4:5:6:7:1.2.3.4',
      '"1:2:3:4:5:6:7:1.2.3.4" is not a valid IPv6 address: expected 8 groups, found 9 (use "::" for a run of zero groups)',
    ],
    ['::ffff:1.2.3.256', '"::ffff:1.2.3.256" is not a valid IPv6 address: embedded IPv4 "1.2.3.256": octet 256 is above 255'],
    ['::ffff:01.2.3.4', '"::ffff:01.2.3.4" is not a valid IPv6 address: embedded IPv4 "01.2.3.4": octets must not have leading zeros'],
    ['1.2.3.4::', '"1.2.3.4::" is not a valid IPv6 address: an embedded IPv4 address may only come last'],
  ])('rejects %j', (text, message) => {
    const error = parseError(text);
    expect(error.kind).toBe('ip');
    expect(error.name).toBe('IpFormatError');
    expect(error.message).toBe(message);
  });

  it('cuts long values in messages rather than echoing them whole', () => {
    const message = parseError('x'.repeat(10_000)).message;
    expect(message).toBe(`"${'x'.repeat(64)}"… is not an IP address`);
  });
});

describe('formatIp', () => {
  it.each([
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:0db8::0001', '2001:db8::1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['2001:db8::0:1', '2001:db8::1'],
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['2001:DB8::AAAA', '2001:db8::aaaa'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['1:0:0:0:0:0:0:0', '1::'],
    ['1:0:1:0:1:0:1:0', '1:0:1:0:1:0:1:0'],
    ['::ffff:1.2.3.4', '::ffff:102:304'],
    ['10.0.0.1', '10.0.0.1'],
  ])('canonicalIp(%s) is %s', (text, canonical) => {
    expect(canonicalIp(text)).toBe(canonical);
  });

  it.each([
    [4, -1n],
    [4, 1n << 32n],
    [6, 1n << 128n],
  ] as const)('refuses an IPv%i value that does not fit: %s', (family, value) => {
    expect(() => formatIp({ family, value })).toThrow(RangeError);
  });
});

const v4Value = fc.bigInt({ min: 0n, max: V4_MAX });
/** Eight 16-bit groups, biased towards zero so that "::" runs of every length and position occur. */
const v6Groups = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), {
  minLength: 8,
  maxLength: 8,
});
const groupsValue = (groups: number[]) => groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);

/** Any valid, usually non-canonical, text for the groups: padded, mixed case, any zero run compressed, dotted tail. */
const v6Text = fc
  .record({
    groups: v6Groups,
    pads: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 8, maxLength: 8 }),
    upper: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
    dottedTail: fc.boolean(),
    compress: fc.option(fc.nat()),
  })
  .map(({ groups, pads, upper, dottedTail, compress }) => {
    const hex = groups.map((g, i) => {
      const text = g.toString(16).padStart(Math.min(4, g.toString(16).length + pads[i]), '0');
      return upper[i] ? text.toUpperCase() : text;
    });
    const tokens = dottedTail ? hex.slice(0, 6) : hex;
    const tail = dottedTail ? [[groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.')] : [];
    const zeroRuns: Array<[number, number]> = [];
    for (let i = 0; i < tokens.length; i++) {
      for (let j = i; j < tokens.length && groups[j] === 0; j++) zeroRuns.push([i, j + 1]);
    }
    if (compress === null || zeroRuns.length === 0) return { value: groupsValue(groups), text: [...tokens, ...tail].join(':') };
    const [from, to] = zeroRuns[compress % zeroRuns.length];
    const text = `${tokens.slice(0, from).join(':')}::${[...tokens.slice(to), ...tail].join(':')}`;
    return { value: groupsValue(groups), text };
  });

describe('properties', () => {
  it('IPv4 format/parse round-trips', () => {
    fc.assert(
      fc.property(v4Value, (value) => {
        expect(parseIp(formatIp({ family: 4, value }))).toEqual({ family: 4, value });
      }),
    );
  });

  it('IPv6 format/parse round-trips, and the format is RFC 5952 canonical', () => {
    fc.assert(
      fc.property(fc.oneof(fc.bigInt({ min: 0n, max: V6_MAX }), v6Groups.map(groupsValue)), (value) => {
        const text = formatIp({ family: 6, value });
        expect(parseIp(text)).toEqual({ family: 6, value });
        expect(text).toBe(urlCanonical(text));
      }),
    );
  });

  it('every valid IPv6 text form parses to the same value', () => {
    fc.assert(
      fc.property(v6Text, ({ value, text }) => {
        expect(parseIp(text)).toEqual({ family: 6, value });
        expect(canonicalIp(text)).toBe(urlCanonical(text));
      }),
      { numRuns: 1000 },
    );
  });

  it('accepts exactly what Node accepts, and throws nothing but IpFormatError', () => {
    const alphabet = '0123456789abcdefABCDEF:.'.split('');
    const edit = fc.record({ at: fc.nat(), kind: fc.constantFrom('delete', 'insert'), char: fc.constantFrom(...alphabet) });
    const mangled = fc
      .tuple(
        fc.oneof(
          v6Text.map(({ text }) => text),
          v4Value.map((value) => formatIp({ family: 4, value })),
        ),
        fc.array(edit, { maxLength: 3 }),
      )
      .map(([text, edits]) =>
        edits.reduce((acc, { at, kind, char }) => {
          const i = at % (acc.length + 1);
          return kind === 'delete' ? acc.slice(0, i) + acc.slice(i + 1) : acc.slice(0, i) + char + acc.slice(i);
        }, text),
      );
    fc.assert(
      fc.property(fc.oneof(mangled, fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 20 })), (text) => {
        let family: number;
        try {
          family = parseIp(text).family;
        } catch (error) {
          expect(error).toBeInstanceOf(IpFormatError);
          family = 0;
        }
        expect(family).toBe(isIP(text));
      }),
      { numRuns: 3000 },
    );
  });
});
