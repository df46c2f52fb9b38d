import { Injectable } from '@nestjs/common';

/** How long a cluster seen listed is taken as listed without asking again: its deletion on another replica is seen within it. */
const LISTED_FOR_MS = 5_000;
/** Names kept at most: a flood of made-up names costs a query each, never memory without bound. */
const MAX_NAMES = 10_000;

/**
 * The clusters this replica saw listed lately, so a member's every allocation and read does not
 * ask the database first whether its cluster exists (a round trip each: bench:alloc's fleet mode).
 * A deletion here is forgotten at once; one on another replica within LISTED_FOR_MS, during which
 * a write in that cluster leaves it unlisted until the next write after it, as after a crash
 * between a write and its cluster's creation (ClusterPresence).
 */
@Injectable()
export class ListedClusters {
  private readonly seen = new Map<string, number>();

  /** the clock (ms), for the tests */
  now: () => number = Date.now;

  has(cluster: string): boolean {
    const at = this.seen.get(cluster);
    return at !== undefined && this.now() - at < LISTED_FOR_MS;
  }

  add(cluster: string): void {
    if (this.seen.size >= MAX_NAMES) this.seen.clear();
    this.seen.set(cluster, this.now());
  }

  forget(cluster: string): void {
    this.seen.delete(cluster);
  }
}
