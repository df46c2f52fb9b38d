import { quote } from './ip-format-error';
import { parseIpv4 } from './ipv4';

const GROUPS = 8;

/**
 * IPv6 text in any RFC 4291 form: full, "::"-compressed, or with a dotted IPv4 tail.
 * Returns the 128-bit value, or the reason the text is not one (the caller builds the message).
 */
export function parseIpv6(text: string): bigint | string {
  if (text.startsWith('[') || text.endsWith(']')) return 'remove the brackets';
  if (text.includes('%')) return 'zone ids ("%" suffixes) are not supported';
  const halves = text.split('::');
  if (halves.length > 2) return '"::" may appear only once';
  const compressed = halves.length === 2;
  const head = halves[0] === '' ? [] : halves[0].split(':');
  const tail = compressed && halves[1] !== '' ? halves[1].split(':') : [];

  // A dotted IPv4 tail ("::ffff:1.2.3.4") stands for the last two groups.
  const last = compressed ? tail : head;
  let ipv4: bigint | undefined;
  const dotted = last.at(-1);
  if (dotted?.includes('.')) {
    last.pop();
    const parsed = parseIpv4(dotted);
    if (typeof parsed === 'string') return `embedded IPv4 ${quote(dotted)}: ${parsed}`;
    ipv4 = parsed;
  }

  for (const group of [...head, ...tail]) {
    const problem = groupProblem(group);
    if (problem) return problem;
  }
  const given = head.length + tail.length + (ipv4 === undefined ? 0 : 2);
  if (compressed && given >= GROUPS) {
    return `"::" must stand for at least one zero group, but ${given} groups are given`;
  }
  if (!compressed && given !== GROUPS) {
    return `expected ${GROUPS} groups, found ${given} (use "::" for a run of zero groups)`;
  }

  const groups = [...head, ...Array<string>(GROUPS - given).fill('0'), ...tail];
  const value = groups.reduce((acc, group) => (acc << 16n) | BigInt(`0x${group}`), 0n);
  return ipv4 === undefined ? value : (value << 32n) | ipv4;
}

function groupProblem(group: string): string | undefined {
  if (group === '') return 'a group is empty (look for a stray ":")';
  if (group.includes('.')) return 'an embedded IPv4 address may only come last';
  if (!/^[0-9a-fA-F]+$/.test(group)) return `group ${quote(group)} is not hexadecimal`;
  if (group.length > 4) return `group ${quote(group)} has more than 4 hex digits`;
  return undefined;
}

/** RFC 5952 canonical text: lowercase, no leading zeros, the longest run of 2+ zero groups as "::". */
export function formatIpv6(value: bigint): string {
  const groups = Array.from({ length: GROUPS }, (_, i) => (value >> BigInt(16 * (GROUPS - 1 - i))) & 0xffffn);
  // Longest zero run wins, the first one on a tie; a lone zero group stays "0" (RFC 5952 §4.2.2).
  let runStart = -1;
  let runLength = 1;
  for (let i = 0; i < GROUPS; i++) {
    if (groups[i] !== 0n) continue;
    let j = i;
    while (j < GROUPS && groups[j] === 0n) j++;
    if (j - i > runLength) [runStart, runLength] = [i, j - i];
    i = j;
  }
  const hex = groups.map((group) => group.toString(16));
  if (runStart < 0) return hex.join(':');
  return `${hex.slice(0, runStart).join(':')}::${hex.slice(runStart + runLength).join(':')}`;
}
