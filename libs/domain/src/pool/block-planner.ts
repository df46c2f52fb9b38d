import { cidrFirst, familyBits, formatCidr, formatIp, type Cidr } from '@ipledger/ip';
import { DomainError } from '../errors/domain-error';
import type { PoolBlocks } from './pool-blocks';
import type { AddressRange, Block, PoolView } from './pool-state';

/** A pool handed out in blocks, as the planner reads it. */
export type BlockedPoolView = PoolView & { cidr: Readonly<Cidr>; blocks: Readonly<PoolBlocks> };

/** Where a node's next address comes from: a span to choose it in, the block to claim first (if any), and whether it is borrowed. */
export interface BlockPlan {
  span: AddressRange;
  /** the first address of a free block the node claims for this address; null when it already holds the span */
  claim: bigint | null;
  /** true when the span is other nodes' blocks (blockAffinity `borrow`, and no block was free) */
  borrowed: boolean;
}

/** The pool as the block planner reads it, or null when it has no blocks. */
export function blockedPool(pool: PoolView): BlockedPoolView | null {
  return pool.blocks && pool.cidr ? (pool as BlockedPoolView) : null;
}

/** Whether the block is this node's: a node of one cluster, never another cluster's node of the name. */
export const ownsBlock = (block: Readonly<Block>, cluster: string, node: string) => block.node === node && block.cluster === cluster;

export const blockLength = (pool: BlockedPoolView): bigint => 1n << BigInt(familyBits(pool.cidr.family) - pool.blocks.blockSize);

export const blockCount = (pool: BlockedPoolView): bigint => 1n << BigInt(pool.blocks.blockSize - pool.cidr.prefixLength);

/** The first address of the block holding `ip`. */
export function blockOf(pool: BlockedPoolView, ip: bigint): bigint {
  const base = cidrFirst(pool.cidr);
  return ip - ((ip - base) % blockLength(pool));
}

/** A block's text form, `10.0.0.64/26`. */
export const blockCidr = (pool: BlockedPoolView, first: bigint): string =>
  formatCidr({ family: pool.cidr.family, network: first, prefixLength: pool.blocks.blockSize });

/** The block's addresses that can be handed out at all: never the pool's IPv4 network or broadcast. */
export function usableOf(pool: BlockedPoolView, first: bigint): AddressRange {
  const last = first + blockLength(pool) - 1n;
  return { start: first > pool.usableFirst ? first : pool.usableFirst, end: last < pool.usableLast ? last : pool.usableLast };
}

const hasFree = (pool: BlockedPoolView, { start, end }: AddressRange) => start <= end && pool.used.firstGap(start, end) !== null;

/**
 * How a node's next address is placed in a pool with blocks: in its own blocks, lowest first; else
 * in the lowest free block without a StatefulSet range, which it claims; else (only with `borrow`) anywhere free in other
 * nodes' blocks, marked borrowed. Blocks are claimed lowest first so the claimed space stays packed
 * and aggregates well in routes. POOL_EXHAUSTED says why when nothing fits. Pure: the pool is only read.
 */
export function planBlock(pool: BlockedPoolView, cluster: string, node: string): BlockPlan {
  const own = [...pool.claimed.values()].filter((block) => ownsBlock(block, cluster, node)).sort((a, b) => (a.first < b.first ? -1 : 1));
  for (const block of own) {
    const span = usableOf(pool, block.first);
    if (hasFree(pool, span)) return { span, claim: null, borrowed: false };
  }
  const free = firstFreeBlock(pool);
  if (free !== null) return { span: usableOf(pool, free), claim: free, borrowed: false };
  const everywhere = { start: pool.usableFirst, end: pool.usableLast };
  if (pool.blocks.blockAffinity === 'borrow' && hasFree(pool, everywhere)) return { span: everywhere, claim: null, borrowed: true };
  const why = hasFree(pool, everywhere)
    ? `blockAffinity is strict and every free address is in another node's block`
    : 'it has no free address';
  throw new DomainError(
    'POOL_EXHAUSTED',
    `pool "${pool.name}" has no address for node "${node}": its ${own.length} block(s) are full, no block of /${pool.blocks.blockSize} is free, and ${why}`,
  );
}

/**
 * A block a node may claim: no node claims it and no StatefulSet range lies in it, since a node's
 * block is routed to that node and the range's pods run anywhere.
 */
function claimable(pool: BlockedPoolView, first: bigint): boolean {
  return !pool.claimed.has(first) && !pool.rangeSet.overlaps(first, first + blockLength(pool) - 1n);
}

/** The lowest claimable block that still has a free address; null when there is none. */
export function firstFreeBlock(pool: BlockedPoolView): bigint | null {
  const length = blockLength(pool);
  const count = blockCount(pool);
  const base = cidrFirst(pool.cidr);
  for (let i = 0n; i < count; i++) {
    const first = base + i * length;
    if (claimable(pool, first) && hasFree(pool, usableOf(pool, first))) return first;
  }
  return null;
}

/**
 * The runs of consecutive blocks no node claims, as spans of usable addresses, lowest first: where
 * a StatefulSet range may lie in a pool with blocks.
 */
export function unclaimedSpans(pool: BlockedPoolView): AddressRange[] {
  const length = blockLength(pool);
  const count = blockCount(pool);
  const base = cidrFirst(pool.cidr);
  const spans: AddressRange[] = [];
  let start: bigint | null = null;
  for (let i = 0n; i <= count; i++) {
    const first = base + i * length;
    const free = i < count && !pool.claimed.has(first);
    if (free && start === null) start = first;
    if (!free && start !== null) {
      const span = { start: usableOf(pool, start).start, end: usableOf(pool, first - length).end };
      if (span.start <= span.end) spans.push(span);
      start = null;
    }
  }
  return spans;
}

/**
 * Where a requested address stands: in the node's own block, in a free block (claimed for it), or in
 * another node's block or a block holding a StatefulSet range, which no node may claim (borrowed,
 * refused under `strict`).
 */
export function planRequestedBlock(pool: BlockedPoolView, cluster: string, node: string, ip: bigint): Omit<BlockPlan, 'span'> {
  const first = blockOf(pool, ip);
  const block = pool.claimed.get(first);
  if (block && ownsBlock(block, cluster, node)) return { claim: null, borrowed: false };
  if (!block && claimable(pool, first)) return { claim: first, borrowed: false };
  if (pool.blocks.blockAffinity === 'strict') {
    const show = formatIp({ family: pool.cidr.family, value: ip });
    const whose = block ? `of node "${block.node}"` : 'holding a StatefulSet range or ip-set';
    throw new DomainError(
      'IP_RESERVED',
      `${show} is in block ${blockCidr(pool, first)} ${whose} and pool "${pool.name}" has blockAffinity strict`,
    );
  }
  return { claim: null, borrowed: true };
}

/** The empty blocks due to go back at `now` (milliseconds, the database clock): empty for blockReleaseSeconds at least. */
export function idleBlocks(pool: BlockedPoolView, now: number): Array<Readonly<Block>> {
  const delay = pool.blocks.blockReleaseSeconds * 1000;
  return [...pool.claimed.values()].filter((block) => block.used === 0 && block.emptiedAt !== null && now - block.emptiedAt >= delay);
}
