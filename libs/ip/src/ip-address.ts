import { familyBits, IpFamily } from './ip-family';
import { IpFormatError, quote } from './ip-format-error';
import { formatIpv4, parseIpv4 } from './ipv4';
import { formatIpv6, parseIpv6 } from './ipv6';

/** An address as a number, so arithmetic and comparisons are exact for both families. */
export interface IpAddress {
  readonly family: IpFamily;
  readonly value: bigint;
}

/** Strict dotted-quad IPv4, or IPv6 in any RFC 4291 form without zone id or brackets. */
export function parseIp(text: string): IpAddress {
  if (/\s/.test(text)) throw new IpFormatError('ip', `${quote(text)} is not an IP address: it contains whitespace`);
  const family: IpFamily | undefined = text.includes(':') ? 6 : text.includes('.') ? 4 : undefined;
  if (family === undefined) throw new IpFormatError('ip', `${quote(text)} is not an IP address`);
  const parsed = family === 4 ? parseIpv4(text) : parseIpv6(text);
  if (typeof parsed === 'string') {
    throw new IpFormatError('ip', `${quote(text)} is not a valid IPv${family} address: ${parsed}`);
  }
  return { family, value: parsed };
}

/** Dotted quad for IPv4, RFC 5952 canonical text for IPv6. */
export function formatIp(address: IpAddress): string {
  const { family, value } = address;
  // A value that does not fit would print as a plausible but different address.
  if (value < 0n || value >> BigInt(familyBits(family)) !== 0n) {
    throw new RangeError(`${value} does not fit in an IPv${family} address`);
  }
  return family === 4 ? formatIpv4(value) : formatIpv6(value);
}

/** RFC 5952 text for IPv6 (hexadecimal throughout), whatever form it was given or PostgreSQL printed it in. */
export function canonicalIp(text: string): string {
  return formatIp(parseIp(text));
}
