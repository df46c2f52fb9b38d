import { formatIp, parseIp } from './ip-address';
import { IpFamily } from './ip-family';
import { IpFormatError, parsePart, quote } from './ip-format-error';

/** An inclusive span of addresses, not necessarily aligned to a CIDR boundary. */
export interface IpRange {
  readonly family: IpFamily;
  readonly first: bigint;
  readonly last: bigint;
}

/** A single address ("10.0.0.1") or "first-last"; IPv6 text never contains "-", so the split is unambiguous. */
export function parseIpRange(text: string): IpRange {
  const ends = text.split('-');
  if (ends.length > 2) {
    throw new IpFormatError('range', `${quote(text)} is not a range: expected an address or "first-last"`);
  }
  const [first, last = first] = ends.map((end) => parsePart('range', text, end, parseIp));
  if (first.family !== last.family) {
    throw new IpFormatError('range', `${quote(text)}: both ends must be of the same family, not IPv${first.family} and IPv${last.family}`);
  }
  const range: IpRange = { family: first.family, first: first.value, last: last.value };
  if (range.first > range.last) {
    const swapped = quote(formatIpRange({ ...range, first: range.last, last: range.first }));
    throw new IpFormatError('range', `${quote(text)}: the first address is above the last: did you mean ${swapped}?`);
  }
  return range;
}

export function formatIpRange(range: IpRange): string {
  const first = formatIp({ family: range.family, value: range.first });
  return range.first === range.last ? first : `${first}-${formatIp({ family: range.family, value: range.last })}`;
}
