/**
 * A block of the pool (`cidr`, `blockSize` long) now belongs to `node`: the node's addresses come
 * from its blocks, and a route controller announces the block towards it.
 */
export interface BlockClaimed {
  type: 'BlockClaimed';
  /** cluster: the node's; absent: the default cluster */
  data: { pool: string; cidr: string; node: string; cluster?: string };
}
