import { quote } from './ip-format-error';

/**
 * Strict dotted-quad IPv4 text, shared by plain addresses and the IPv4 tail of IPv6 text.
 * Returns the 32-bit value, or the reason the text is not one (the caller builds the message).
 */
export function parseIpv4(text: string): bigint | string {
  const octets = text.split('.');
  if (octets.length !== 4) return `expected 4 decimal octets separated by dots, found ${octets.length}`;
  let value = 0n;
  for (const octet of octets) {
    if (octet === '') return 'an octet is empty';
    if (!/^[0-9]+$/.test(octet)) return `octet ${quote(octet)} is not a decimal number`;
    // Some parsers read a leading zero as octal (010 = 8), so the text would be ambiguous.
    if (octet.length > 1 && octet.startsWith('0')) return 'octets must not have leading zeros';
    if (Number(octet) > 255) return `octet ${octet} is above 255`;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

export function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => (value >> shift) & 0xffn).join('.');
}
