/** An inclusive interval [start, end]. */
export type Run = readonly [start: bigint, end: bigint];

/** The queries of a RangeSet, for code that must not change it (a state shared through a cache). */
export type ReadonlyRangeSet = Omit<RangeSet, 'add' | 'remove'>;

/**
 * A mutable set of bigint addresses, kept as sorted, disjoint, non-adjacent runs, so memory follows
 * the number of runs (n), not addresses: an IPv4 /8 or an IPv6 /64 fully used is one run.
 *
 * Complexity: has, overlaps, firstGap and count are O(log n) or better. add and remove are an
 * O(log n) search plus an array splice, plus O(k) for the k runs they merge or cut. firstGapOfLength,
 * largestGap and gapCount are O(log n + k) for the k runs inside the window they scan.
 *
 * Mutations reject start > end (a caller bug); queries treat from > to as an empty window.
 */
export class RangeSet {
  private list: Run[] = [];
  /** Kept incrementally so count() never walks the runs. */
  private total = 0n;

  add(start: bigint, end: bigint = start): void {
    checkOrder(start, end);
    // Runs overlapping or touching [start, end] fold into one, keeping the runs coalesced.
    const lo = this.search(([, runEnd]) => runEnd >= start - 1n);
    const hi = this.search(([runStart]) => runStart > end + 1n);
    const merged: Run = lo < hi ? [min(start, this.list[lo][0]), max(end, this.list[hi - 1][1])] : [start, end];
    this.replace(lo, hi, [merged]);
  }

  remove(start: bigint, end: bigint = start): void {
    checkOrder(start, end);
    const lo = this.search(([, runEnd]) => runEnd >= start);
    const hi = this.search(([runStart]) => runStart > end);
    if (lo >= hi) return;
    // Only the first and last affected runs can stick out of [start, end]; what sticks out stays.
    const kept: Run[] = [];
    if (this.list[lo][0] < start) kept.push([this.list[lo][0], start - 1n]);
    if (this.list[hi - 1][1] > end) kept.push([end + 1n, this.list[hi - 1][1]]);
    this.replace(lo, hi, kept);
  }

  has(address: bigint): boolean {
    const i = this.search(([, runEnd]) => runEnd >= address);
    return i < this.list.length && this.list[i][0] <= address;
  }

  overlaps(start: bigint, end: bigint): boolean {
    const i = this.search(([, runEnd]) => runEnd >= start);
    return start <= end && i < this.list.length && this.list[i][0] <= end;
  }

  /** Lowest address of the set inside [from, to], or null. */
  firstIn(from: bigint, to: bigint): bigint | null {
    const i = this.search(([, runEnd]) => runEnd >= from);
    if (from > to || i >= this.list.length || this.list[i][0] > to) return null;
    return max(from, this.list[i][0]);
  }

  /** Addresses in the set. */
  count(): bigint {
    return this.total;
  }

  /** How many runs: what the set's memory follows. */
  runCount(): number {
    return this.list.length;
  }

  /** A copy of the runs, ascending. */
  runs(): ReadonlyArray<Run> {
    return this.list.slice();
  }

  clone(): RangeSet {
    const copy = new RangeSet();
    copy.list = this.list.slice();
    copy.total = this.total;
    return copy;
  }

  /** Lowest address in [from, to] not in the set. */
  firstGap(from: bigint, to: bigint): bigint | null {
    for (const [start] of this.gaps(from, to)) return start;
    return null;
  }

  /** Lowest start of `length` consecutive free addresses inside [from, to]. */
  firstGapOfLength(from: bigint, to: bigint, length: bigint): bigint | null {
    if (length < 1n) throw new RangeError(`gap length must be at least 1, got ${length}`);
    for (const [start, end] of this.gaps(from, to)) {
      if (end - start + 1n >= length) return start;
    }
    return null;
  }

  /** Longest free stretch inside [from, to], the lowest one on a tie. */
  largestGap(from: bigint, to: bigint): { start: bigint; length: bigint } | null {
    let best: { start: bigint; length: bigint } | null = null;
    for (const [start, end] of this.gaps(from, to)) {
      if (best === null || end - start + 1n > best.length) best = { start, length: end - start + 1n };
    }
    return best;
  }

  /** Addresses in [from, to] not in the set. */
  gapCount(from: bigint, to: bigint): bigint {
    let free = 0n;
    for (const [start, end] of this.gaps(from, to)) free += end - start + 1n;
    return free;
  }

  /** Free stretches inside [from, to], ascending; lazy, so callers stop as soon as they have an answer. */
  private *gaps(from: bigint, to: bigint): Generator<Run> {
    let next = this.search(([runStart]) => runStart > from);
    // The run holding `from`, if any, ends right before a gap because runs never touch.
    let cursor = next > 0 && this.list[next - 1][1] >= from ? this.list[next - 1][1] + 1n : from;
    while (cursor <= to) {
      const run = this.list[next] as Run | undefined;
      yield [cursor, run === undefined ? to : min(to, run[0] - 1n)];
      if (run === undefined) return;
      cursor = run[1] + 1n;
      next++;
    }
  }

  /** Replaces runs [lo, hi) with `runs`, keeping the total in step. */
  private replace(lo: number, hi: number, runs: Run[]): void {
    for (let i = lo; i < hi; i++) this.total -= size(this.list[i]);
    for (const run of runs) this.total += size(run);
    this.list.splice(lo, hi - lo, ...runs);
  }

  /** Index of the first run for which `past` holds; `past` must be false, then true, along the runs. */
  private search(past: (run: Run) => boolean): number {
    let lo = 0;
    let hi = this.list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (past(this.list[mid])) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

function checkOrder(start: bigint, end: bigint): void {
  if (start > end) throw new RangeError(`start ${start} is above end ${end}`);
}

function size([start, end]: Run): bigint {
  return end - start + 1n;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
