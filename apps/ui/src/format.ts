/** Counts come as decimal strings (an IPv6 /64 holds 2^64 addresses): exact with grouping while readable, else 3 digits. */
export function formatCount(text: string | bigint): string {
  const n = BigInt(text);
  if (n < 1_000_000_000_000n) return n.toLocaleString('en-US');
  const [mantissa, exponent] = Number(n).toExponential(2).split('e+');
  return `${mantissa}×10${[...exponent].map((d) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[Number(d)]).join('')}`;
}

/** The share of a whole, as a fraction 0..1, computed exactly on bigints before the division. */
export function share(part: string | bigint, whole: string | bigint): number {
  const w = BigInt(whole);
  return w === 0n ? 0 : Number((BigInt(part) * 1_000_000n) / w) / 1_000_000;
}

export function percent(fraction: number): string {
  if (fraction > 0 && fraction < 0.001) return '<0.1%';
  return `${(fraction * 100).toFixed(1)}%`;
}

export function formatTime(iso: string): string {
  return iso.replace('T', ' ').replace('Z', ' UTC');
}
