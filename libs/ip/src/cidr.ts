import { formatIp, IpAddress, parseIp } from './ip-address';
import { familyBits, IpFamily } from './ip-family';
import { IpFormatError, parsePart, quote } from './ip-format-error';

/** A network block; `network` always has its host bits clear. */
export interface Cidr {
  readonly family: IpFamily;
  readonly network: bigint;
  readonly prefixLength: number;
}

/** "address/length". The address must be the network address, so a typo cannot widen or shift a pool. */
export function parseCidr(text: string): Cidr {
  const fail = (reason: string) => new IpFormatError('cidr', `${quote(text)}: ${reason}`);
  const slash = text.indexOf('/');
  if (slash < 0) throw fail('a prefix length is missing, as in "10.0.0.0/24" or "fd00::/64"');
  const { family, value } = parsePart('cidr', text, text.slice(0, slash), parseIp);

  const lengthText = text.slice(slash + 1);
  const bits = familyBits(family);
  if (!/^[0-9]+$/.test(lengthText)) throw fail(`prefix length ${quote(lengthText)} is not a decimal number`);
  if (lengthText.length > 1 && lengthText.startsWith('0')) throw fail('prefix length must not have leading zeros');
  const prefixLength = Number(lengthText);
  if (prefixLength > bits) {
    throw fail(`prefix length ${lengthText} is out of range (0-${bits} for IPv${family})`);
  }

  const cidr: Cidr = { family, network: value & ~(cidrSizeOf(bits, prefixLength) - 1n), prefixLength };
  if (cidr.network !== value) {
    const suggestion = quote(formatCidr(cidr));
    throw new IpFormatError('cidr', `${quote(text)} is not a network address: did you mean ${suggestion}?`);
  }
  return cidr;
}

export function formatCidr(cidr: Cidr): string {
  return `${formatIp({ family: cidr.family, value: cidr.network })}/${cidr.prefixLength}`;
}

/** PostgreSQL prints some IPv6 networks dotted ("::128.0.0.0/98"); every text the service shows is this one. */
export function canonicalCidr(text: string): string {
  return formatCidr(parseCidr(text));
}

export function cidrFirst(cidr: Cidr): bigint {
  return cidr.network;
}

export function cidrLast(cidr: Cidr): bigint {
  return cidr.network + cidrSize(cidr) - 1n;
}

/** Number of addresses in the block, network and broadcast included. */
export function cidrSize(cidr: Cidr): bigint {
  return cidrSizeOf(familyBits(cidr.family), cidr.prefixLength);
}

function cidrSizeOf(bits: number, prefixLength: number): bigint {
  return 1n << BigInt(bits - prefixLength);
}

export function cidrContains(cidr: Cidr, address: IpAddress): boolean {
  return address.family === cidr.family && address.value >= cidr.network && address.value <= cidrLast(cidr);
}

export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  return a.family === b.family && a.network <= cidrLast(b) && b.network <= cidrLast(a);
}
