/**
 * A StatefulSet names its pods `<name>-<ordinal>`: the ordinal is the last `-`-separated token when
 * it is all digits. Null for any other pod name.
 */
export function statefulSetPod(pod: string): { statefulSet: string; ordinal: number } | null {
  const match = /^(.+)-(\d+)$/.exec(pod);
  if (!match) return null;
  const ordinal = Number(match[2]);
  return Number.isSafeInteger(ordinal) ? { statefulSet: match[1], ordinal } : null;
}

/**
 * The address reserved for `ordinal`, when the range covers it: `start + (ordinal - ordinalsStart)`.
 * Ordinals past the range (a scale-up that could not extend it) get addresses on the fly.
 */
export function addressForOrdinal(range: { start: bigint; end: bigint }, ordinalsStart: number, ordinal: number): bigint | null {
  const address = range.start + BigInt(ordinal - ordinalsStart);
  return ordinal >= ordinalsStart && address <= range.end ? address : null;
}
