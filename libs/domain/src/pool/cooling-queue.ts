import { AppendOnlyList } from './append-only-list';
import { OverlayMap } from './overlay-map';

/** Where an address sits in the release order, and when it was released (ms; Infinity while not recorded). */
interface Cooling {
  seq: number;
  releasedAt: number;
}

/** Entries a queue's list may carry beyond twice its live ones before it keeps only the live ones. */
const SLACK = 32;

/**
 * Released addresses still in their reuse delay, in release order (a re-released address goes to
 * the back), each with its release time: a queue the log's own times expire from the front.
 *
 * A pool state is drafted for every event (draftPool), so copying the queue there cost O(cooling
 * addresses) an event. Here a draft costs O(changes): the times are an OverlayMap, and the order is
 * an immutable AppendOnlyList of addresses (an address's place in it is its `seq`) that drafts
 * share and append to by path copying, so the state the cache shares never changes. Deleting
 * leaves the entry behind, dead: an entry is live while the times name its address at its seq, and
 * the front skips dead ones.
 */
export class CoolingQueue {
  private constructor(
    private log: AppendOnlyList<bigint>,
    private times: Map<bigint, Cooling>,
    /** no live entry lies before it */
    private front: number,
  ) {}

  static empty(): CoolingQueue {
    return new CoolingQueue(AppendOnlyList.empty(), new Map(), 0);
  }

  /** A writable queue on top of this one, which it never changes (see the class comment). */
  draft(): CoolingQueue {
    return new CoolingQueue(this.log, OverlayMap.over(this.times), this.front);
  }

  get size(): number {
    return this.times.size;
  }

  /** The addresses, in no particular order. */
  keys(): IterableIterator<bigint> {
    return this.times.keys();
  }

  /** The longest cooling one (null when none is): the first to be free again. */
  first(): { ip: bigint; releasedAt: number } | null {
    const seq = this.liveFrom(this.front);
    if (seq === null) return null;
    const ip = this.log.get(seq);
    return { ip, releasedAt: this.times.get(ip)!.releasedAt };
  }

  /** Every address with its release time, oldest first: O(n log n), for snapshots and rebuilds, not for every event. */
  inOrder(): Array<[bigint, number]> {
    return [...this.times].sort(([, a], [, b]) => a.seq - b.seq).map(([ip, { releasedAt }]) => [ip, releasedAt]);
  }

  /** Puts `ip` at the back (a draft's change). */
  add(ip: bigint, releasedAt: number): void {
    if (this.log.length - this.front > 2 * this.times.size + SLACK) this.compact();
    this.times.set(ip, { seq: this.log.length, releasedAt });
    this.log = this.log.push(ip);
  }

  /** A draft's change; O(1): the entry stays in the list, dead. */
  delete(ip: bigint): boolean {
    return this.times.delete(ip);
  }

  /** Takes from the front each address released at or before `releasedBy`, and tells `freed` of it (a draft's change). */
  expire(releasedBy: number, freed: (ip: bigint) => void): void {
    for (let seq = this.liveFrom(this.front); seq !== null; seq = this.liveFrom(seq + 1)) {
      const ip = this.log.get(seq);
      if (this.times.get(ip)!.releasedAt > releasedBy) {
        this.front = seq;
        return;
      }
      this.times.delete(ip);
      freed(ip);
    }
    this.front = this.log.length;
  }

  /** The first live entry at or after `seq`, or null. */
  private liveFrom(seq: number): number | null {
    if (this.times.size === 0) return null;
    for (let at = seq; at < this.log.length; at++) if (this.times.get(this.log.get(at))?.seq === at) return at;
    return null;
  }

  /**
   * A list of this queue's live entries alone, once dead ones (deleted, expired) outnumber them:
   * O(live) once every O(live) changes, so the list stays within about twice its queue.
   */
  private compact(): void {
    const live = this.inOrder();
    this.log = AppendOnlyList.of(live.map(([ip]) => ip));
    this.times = new Map(live.map(([ip, releasedAt], seq) => [ip, { seq, releasedAt }]));
    this.front = 0;
  }
}
