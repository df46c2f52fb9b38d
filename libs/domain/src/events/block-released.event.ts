/**
 * The block went back to the pool, empty: `idle` after the pool's blockReleaseSeconds with no
 * address held in it (`emptiedAt` says since when, so the log alone shows the delay was kept), or
 * `node-deleted` when its node went away.
 */
export interface BlockReleased {
  type: 'BlockReleased';
  /** cluster: the node's; absent: the default cluster */
  data: { pool: string; cidr: string; node: string; cluster?: string; reason: 'idle' | 'node-deleted'; emptiedAt: string | null };
}
