import { formatIpRange, IpFormatError, parseIpRange } from '@ipledger/ip';

function parseError(text: string): IpFormatError {
  try {
    parseIpRange(text);
  } catch (error) {
    if (error instanceof IpFormatError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be rejected`);
}

describe('parseIpRange', () => {
  it.each([
    ['10.0.0.1', { family: 4, first: 0x0a000001n, last: 0x0a000001n }, '10.0.0.1'],
    ['10.0.0.1-10.0.0.9', { family: 4, first: 0x0a000001n, last: 0x0a000009n }, '10.0.0.1-10.0.0.9'],
    ['10.0.0.1-10.0.0.1', { family: 4, first: 0x0a000001n, last: 0x0a000001n }, '10.0.0.1'],
    ['FD00::0001-fd00::ff', { family: 6, first: (0xfd00n << 112n) + 1n, last: (0xfd00n << 112n) + 0xffn }, 'fd00::1-fd00::ff'],
  ])('parses %s', (text, range, formatted) => {
    expect(parseIpRange(text)).toEqual(range);
    expect(formatIpRange(parseIpRange(text))).toBe(formatted);
  });

  it.each([
    ['abc', '"abc" is not an IP address'],
    ['10.0.0.9-10.0.0.1', '"10.0.0.9-10.0.0.1": the first address is above the last: did you mean "10.0.0.1-10.0.0.9"?'],
    ['10.0.0.1-::1', '"10.0.0.1-::1": both ends must be of the same family, not IPv4 and IPv6'],
    ['10.0.0.1-10.0.0.2-10.0.0.3', '"10.0.0.1-10.0.0.2-10.0.0.3" is not a range: expected an address or "first-last"'],
    ['10.0.0.1-', '"10.0.0.1-": "" is not an IP address'],
    ['10.0.0.1-10.0.0.256', '"10.0.0.1-10.0.0.256": "10.0.0.256" is not a valid IPv4 address: octet 256 is above 255'],
    ['10.0.0.1 - 10.0.0.2', '"10.0.0.1 - 10.0.0.2": "10.0.0.1 " is not an IP address: it contains whitespace'],
  ])('rejects %j', (text, message) => {
    const error = parseError(text);
    expect(error.kind).toBe('range');
    expect(error.message).toBe(message);
  });
});
