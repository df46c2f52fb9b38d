import { cidrFirst, cidrLast, familyBits, formatCidr, formatIp, parseCidr, parseIp, parseIpRange, RangeSet, type Cidr } from '@ipledger/ip';
import type { Allocation, Block, Pool, StatefulSetRange } from './api-types';
import { ipSetOf } from './range-owner';

/** What an address is, in the order a cell shows it: the first that applies wins. */
export const ADDRESS_STATES = ['allocated', 'gateway', 'reserved', 'range', 'ipset', 'free', 'unusable'] as const;
export type AddressState = (typeof ADDRESS_STATES)[number];

/** Up to this many addresses (an IPv4 /20) the map draws one cell an address; beyond, blocks. */
export const MAX_ADDRESS_CELLS = 4096;
/** A map of blocks has 2^BLOCK_BITS of them (a /16 shows its 256 /24s). */
const BLOCK_BITS = 8;

export interface AddressCell {
  kind: 'address';
  ip: string;
  state: AddressState;
  holder?: Allocation;
  range?: StatefulSetRange;
  /** the node's block the address lies in (pools with blockSize) */
  nodeBlock?: Block;
}

export interface BlockCell {
  kind: 'block';
  cidr: string;
  counts: Record<AddressState, bigint>;
  /** the nodes' blocks that overlap this cell, by address */
  nodeBlocks: Block[];
}

interface RangeSpan {
  range: StatefulSetRange;
  start: bigint;
  end: bigint;
}

interface BlockSpan {
  block: Block;
  start: bigint;
  end: bigint;
}

/** A pool's addresses by state, built once from the pool and its allocations, then cut into cells for any view. */
export interface PoolLayout {
  cidr: Cidr;
  usableFirst: bigint;
  usableLast: bigint;
  gateway: bigint | null;
  reservedSet: RangeSet;
  /** StatefulSet ranges */
  rangeSet: RangeSet;
  /** Deployments' and ReplicaSets' ip-sets */
  ipSetSet: RangeSet;
  ranges: RangeSpan[];
  held: Map<bigint, Allocation>;
  /** the blocks nodes have claimed, by start address (they never overlap) */
  nodeBlocks: BlockSpan[];
}

export function poolLayout(pool: Pool, allocations: readonly Allocation[], blocks: readonly Block[] = []): PoolLayout {
  const cidr = parseCidr(pool.cidr);
  const first = cidrFirst(cidr);
  const last = cidrLast(cidr);
  // the server's rule: IPv4 subnets shorter than /31 never hand out their network and broadcast addresses
  const trim = cidr.family === 4 && cidr.prefixLength < 31 ? 1n : 0n;
  const usableFirst = first + trim;
  const usableLast = last - trim;
  const reservedSet = new RangeSet();
  for (const entry of pool.reserved) {
    const { first: a, last: b } = parseIpRange(entry);
    const start = a > usableFirst ? a : usableFirst;
    const end = b < usableLast ? b : usableLast;
    if (start <= end) reservedSet.add(start, end);
  }
  const rangeSet = new RangeSet();
  const ipSetSet = new RangeSet();
  const ranges = (pool.statefulSetRanges ?? []).map((range) => {
    const span = { range, start: parseIp(range.start).value, end: parseIp(range.end).value };
    (ipSetOf(range) ? ipSetSet : rangeSet).add(span.start, span.end);
    return span;
  });
  const held = new Map(allocations.map((a) => [parseIp(a.ip).value, a]));
  const nodeBlocks = blocks
    .map((block) => {
      const span = parseCidr(block.cidr);
      return { block, start: cidrFirst(span), end: cidrLast(span) };
    })
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const gateway = pool.gateway ? parseIp(pool.gateway).value : null;
  return { cidr, usableFirst, usableLast, gateway, reservedSet, rangeSet, ipSetSet, ranges, held, nodeBlocks };
}

/** Index of the first node block that ends at or after `ip` (nodeBlocks.length when none does). */
function firstBlockFrom(layout: PoolLayout, ip: bigint): number {
  // a pool may have 2^16 blocks and a view 4,096 cells: search, do not scan
  let lo = 0;
  let hi = layout.nodeBlocks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (layout.nodeBlocks[mid].end < ip) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The node blocks overlapping `from`..`to`, by address. */
function nodeBlocksIn(layout: PoolLayout, from: bigint, to: bigint): Block[] {
  const found: Block[] = [];
  for (let i = firstBlockFrom(layout, from); i < layout.nodeBlocks.length && layout.nodeBlocks[i].start <= to; i++) {
    found.push(layout.nodeBlocks[i].block);
  }
  return found;
}

function stateOf(layout: PoolLayout, ip: bigint): AddressState {
  if (ip < layout.usableFirst || ip > layout.usableLast) return 'unusable';
  if (layout.held.has(ip)) return 'allocated';
  if (ip === layout.gateway) return 'gateway';
  if (layout.reservedSet.has(ip)) return 'reserved';
  if (layout.rangeSet.has(ip)) return 'range';
  if (layout.ipSetSet.has(ip)) return 'ipset';
  return 'free';
}

const inSet = (set: RangeSet, from: bigint, to: bigint) => to - from + 1n - set.gapCount(from, to);

/** The cells of `view` (the pool's CIDR or a block inside it): addresses when it is small enough, else 256 blocks with counts. */
export function mapCells(layout: PoolLayout, view: Cidr = layout.cidr): AddressCell[] | BlockCell[] {
  const first = cidrFirst(view);
  const hostBits = familyBits(view.family) - view.prefixLength;
  if (1n << BigInt(hostBits) <= BigInt(MAX_ADDRESS_CELLS)) {
    const cells: AddressCell[] = [];
    for (let ip = first; ip <= cidrLast(view); ip++) {
      const state = stateOf(layout, ip);
      const cell: AddressCell = { kind: 'address', ip: formatIp({ family: view.family, value: ip }), state };
      if (state === 'allocated') cell.holder = layout.held.get(ip);
      const range = layout.ranges.find((r) => r.start <= ip && ip <= r.end);
      if (range) cell.range = range.range;
      const [nodeBlock] = nodeBlocksIn(layout, ip, ip);
      if (nodeBlock) cell.nodeBlock = nodeBlock;
      cells.push(cell);
    }
    return cells;
  }
  const blockBits = BigInt(hostBits - BLOCK_BITS);
  const size = 1n << blockBits;
  const blocks: BlockCell[] = [];
  for (let i = 0n; i < 1n << BigInt(BLOCK_BITS); i++) {
    const start = first + i * size;
    const end = start + size - 1n;
    const usableStart = start > layout.usableFirst ? start : layout.usableFirst;
    const usableEnd = end < layout.usableLast ? end : layout.usableLast;
    const usable = usableStart <= usableEnd ? usableEnd - usableStart + 1n : 0n;
    const gateway = layout.gateway !== null && start <= layout.gateway && layout.gateway <= end ? 1n : 0n;
    const gatewayReserved = gateway && layout.reservedSet.has(layout.gateway!) ? 1n : 0n;
    blocks.push({
      kind: 'block',
      cidr: formatCidr({ family: view.family, network: start, prefixLength: familyBits(view.family) - Number(blockBits) }),
      counts: {
        allocated: 0n,
        gateway,
        reserved: usable ? inSet(layout.reservedSet, usableStart, usableEnd) - gatewayReserved : 0n,
        range: usable ? inSet(layout.rangeSet, usableStart, usableEnd) : 0n,
        ipset: usable ? inSet(layout.ipSetSet, usableStart, usableEnd) : 0n,
        free: 0n,
        unusable: size - usable,
      },
      nodeBlocks: nodeBlocksIn(layout, start, end),
    });
  }
  // held addresses are few next to a block's size: bucket them instead of counting per block
  for (const ip of layout.held.keys()) {
    if (ip < first || ip > cidrLast(view)) continue;
    const counts = blocks[Number((ip - first) >> blockBits)].counts;
    counts.allocated++;
    if (layout.reservedSet.has(ip)) counts.reserved--;
    else if (layout.rangeSet.has(ip)) counts.range--;
    else if (layout.ipSetSet.has(ip)) counts.ipset--;
  }
  for (const { counts } of blocks) {
    counts.free = size - counts.unusable - counts.allocated - counts.gateway - counts.reserved - counts.range - counts.ipset;
  }
  return blocks;
}
