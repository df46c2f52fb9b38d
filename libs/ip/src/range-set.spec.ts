import fc from 'fast-check';
import { cidrFirst, cidrLast, parseCidr, parseIp, RangeSet } from '@ipledger/ip';

describe('RangeSet', () => {
  it('coalesces overlapping and adjacent runs', () => {
    const set = new RangeSet();
    set.add(10n, 19n);
    set.add(30n, 39n);
    set.add(20n);
    expect(set.runs()).toEqual([
      [10n, 20n],
      [30n, 39n],
    ]);
    set.add(21n, 29n);
    expect(set.runs()).toEqual([[10n, 39n]]);
    set.add(0n, 100n);
    expect(set.runs()).toEqual([[0n, 100n]]);
    expect(set.count()).toBe(101n);
  });

  it('splits a run when the middle is removed', () => {
    const set = new RangeSet();
    set.add(0n, 9n);
    set.remove(5n);
    set.remove(20n, 30n);
    expect(set.runs()).toEqual([
      [0n, 4n],
      [6n, 9n],
    ]);
    expect(set.count()).toBe(9n);
    expect(set.has(5n)).toBe(false);
    expect(set.firstGap(0n, 9n)).toBe(5n);
  });

  it('answers gap queries over an empty set and an empty window', () => {
    const set = new RangeSet();
    expect(set.firstGap(3n, 7n)).toBe(3n);
    expect(set.largestGap(3n, 7n)).toEqual({ start: 3n, length: 5n });
    expect(set.gapCount(3n, 7n)).toBe(5n);
    expect(set.firstGapOfLength(3n, 7n, 6n)).toBeNull();
    expect(set.firstGap(7n, 3n)).toBeNull();
    expect(set.largestGap(7n, 3n)).toBeNull();
    expect(set.gapCount(7n, 3n)).toBe(0n);
    expect(set.overlaps(7n, 3n)).toBe(false);
  });

  it('rejects reversed intervals on mutation and non-positive gap lengths', () => {
    const set = new RangeSet();
    expect(() => set.add(5n, 4n)).toThrow(RangeError);
    expect(() => set.remove(5n, 4n)).toThrow(RangeError);
    expect(() => set.firstGapOfLength(0n, 9n, 0n)).toThrow(RangeError);
  });

  it('clones independently', () => {
    const set = new RangeSet();
    set.add(1n, 5n);
    const copy = set.clone();
    copy.remove(3n);
    set.add(6n);
    expect(set.runs()).toEqual([[1n, 6n]]);
    expect(copy.runs()).toEqual([
      [1n, 2n],
      [4n, 5n],
    ]);
    expect([set.count(), copy.count()]).toEqual([6n, 4n]);
  });

  it('does not expose its runs to mutation', () => {
    const set = new RangeSet();
    set.add(1n);
    (set.runs() as Array<readonly [bigint, bigint]>).push([5n, 6n]);
    expect(set.runs()).toEqual([[1n, 1n]]);
  });
});

describe('RangeSet at pool scale', () => {
  it('keeps an IPv6 /48, half used in alternating /56 blocks, as one run per block', () => {
    const pool = parseCidr('fd00:1:2::/48');
    const from = cidrFirst(pool);
    const to = cidrLast(pool);
    const block = 1n << 72n;
    const set = new RangeSet();
    // Filled /64 by /64, so every block is built from 256 adds that must coalesce.
    for (let b = 0n; b < 256n; b += 2n) {
      for (let s = 0n; s < 256n; s++) set.add(from + b * block + (s << 64n), from + b * block + ((s + 1n) << 64n) - 1n);
    }
    expect(set.runs().length).toBe(128);
    expect(set.count()).toBe(1n << 79n);
    expect(set.gapCount(from, to)).toBe(1n << 79n);
    expect(set.has(from)).toBe(true);
    expect(set.has(from + block)).toBe(false);
    expect(set.firstGap(from, to)).toBe(from + block);
    expect(set.firstGapOfLength(from, to, block)).toBe(from + block);
    expect(set.firstGapOfLength(from, to, block + 1n)).toBeNull();
    expect(set.largestGap(from, to)).toEqual({ start: from + block, length: block });
    expect(set.overlaps(from + block, from + 2n * block - 1n)).toBe(false);

    set.add(from + block, from + 2n * block - 1n);
    expect(set.runs().length).toBe(127);
    expect(set.firstGap(from, to)).toBe(from + 3n * block);
  });

  it('keeps a whole IPv4 /8, added /24 by /24, as a single run', () => {
    const pool = parseCidr('10.0.0.0/8');
    const from = cidrFirst(pool);
    const to = cidrLast(pool);
    const set = new RangeSet();
    for (let s = from; s <= to; s += 256n) set.add(s, s + 255n);
    expect(set.runs()).toEqual([[from, to]]);
    expect(set.count()).toBe(1n << 24n);
    expect(set.firstGap(from, to)).toBeNull();
    expect(set.gapCount(from, to)).toBe(0n);

    const freed = parseIp('10.1.2.3').value;
    set.remove(freed);
    expect(set.runs().length).toBe(2);
    expect(set.count()).toBe((1n << 24n) - 1n);
    expect(set.firstGap(from, to)).toBe(freed);
    expect(set.largestGap(from, to)).toEqual({ start: freed, length: 1n });
  });
});

/** The obvious implementation over a small universe, one address at a time. */
class NaiveSet {
  readonly members = new Set<bigint>();

  free(x: bigint): boolean {
    return !this.members.has(x);
  }

  /** Whether `length` addresses from `x` on are all free and end no later than `to`. */
  freeFor(x: bigint, length: bigint, to: bigint): boolean {
    if (x + length - 1n > to) return false;
    for (let y = x; y < x + length; y++) if (!this.free(y)) return false;
    return true;
  }
}

const UNIVERSE = 200;
const point = fc.integer({ min: 0, max: UNIVERSE });
const interval = fc
  .tuple(point, fc.oneof(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: UNIVERSE })))
  .map(([start, length]) => [BigInt(start), BigInt(Math.min(UNIVERSE, start + length))] as const);
const operation = fc.record({ kind: fc.constantFrom('add', 'remove'), interval });
// Queries reach a little past the universe, where everything is free.
const queryWindow = fc.tuple(fc.integer({ min: 0, max: UNIVERSE + 5 }), fc.integer({ min: 0, max: UNIVERSE + 5 }));

describe('RangeSet against a naive model', () => {
  it('agrees after every add and remove', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(operation, queryWindow, fc.integer({ min: 1, max: 12 })), { maxLength: 40 }), (steps) => {
        const set = new RangeSet();
        const model = new NaiveSet();
        for (const [
          {
            kind,
            interval: [start, end],
          },
          [fromN, toN],
          lengthN,
        ] of steps) {
          for (let x = start; x <= end; x++) {
            if (kind === 'add') model.members.add(x);
            else model.members.delete(x);
          }
          if (kind === 'add') set.add(start, end);
          else set.remove(start, end);

          expect(set.count()).toBe(BigInt(model.members.size));
          const universe: bigint[] = [];
          for (let x = -1n; x <= BigInt(UNIVERSE + 6); x++) universe.push(x);
          expect(universe.filter((x) => set.has(x))).toEqual(universe.filter((x) => !model.free(x)));
          const expectedRuns: Array<[bigint, bigint]> = [];
          for (const x of universe.filter((y) => !model.free(y))) {
            const last = expectedRuns[expectedRuns.length - 1];
            if (last && last[1] === x - 1n) last[1] = x;
            else expectedRuns.push([x, x]);
          }
          // Equality with the model's maximal runs means sorted, disjoint and coalesced.
          expect(set.runs()).toEqual(expectedRuns);

          const [from, to, length] = [BigInt(fromN), BigInt(toN), BigInt(lengthN)];
          const window = universe.filter((x) => x >= from && x <= to);
          const free = window.filter((x) => model.free(x));
          expect(set.overlaps(from, to)).toBe(free.length < window.length);
          expect(set.gapCount(from, to)).toBe(BigInt(free.length));
          expect(set.firstGap(from, to)).toBe(free[0] ?? null);
          expect(set.firstIn(from, to)).toBe(window.find((x) => !model.free(x)) ?? null);
          expect(set.firstGapOfLength(from, to, length)).toBe(window.find((x) => model.freeFor(x, length, to)) ?? null);
          let largest: { start: bigint; length: bigint } | null = null;
          for (const x of free) {
            if (largest !== null && x < largest.start + largest.length) continue;
            let end = x;
            while (end + 1n <= to && model.free(end + 1n)) end++;
            if (largest === null || end - x + 1n > largest.length) largest = { start: x, length: end - x + 1n };
          }
          expect(set.largestGap(from, to)).toEqual(largest);
        }
      }),
      { numRuns: 300 },
    );
  });
});
