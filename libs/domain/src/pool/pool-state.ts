import type { CoolingQueue } from './cooling-queue';
import type { Cidr, RangeSet, ReadonlyRangeSet } from '@ipledger/ip';
import type { IpAllocated } from '../events';
import type { Labels } from '../labels';
import type { PoolBlocks } from './pool-blocks';

/** Who holds an address: what IpAllocated recorded, less what the pool itself knows (name, address, family). */
export type Holder = Omit<IpAllocated['data'], 'pool' | 'ip' | 'family' | 'poolNetwork'>;

export interface AddressRange {
  start: bigint;
  end: bigint;
}

/** A block claimed by a node: its addresses go to that node first. */
export interface Block {
  first: bigint;
  last: bigint;
  node: string;
  /** the node's cluster: a block is a node's of one cluster */
  cluster: string;
  /** addresses held in it, by any node */
  used: number;
  /** of `used`, those held by another node */
  borrowed: number;
  /** when it last became empty (milliseconds since the epoch, event time); null while used, or when not known yet */
  emptiedAt: number | null;
}

export interface PoolState {
  name: string;
  /** false before creation and after deletion (a deleted name can be created again) */
  exists: boolean;
  cidr: Cidr | null;
  /** never handed out (part of reservedSet); returned with every allocation */
  gateway: bigint | null;
  labels: Labels;
  nodeSelector: string | null;
  /** the clusters that may allocate from the pool, by their labels; null: every cluster */
  clusterSelector: string | null;
  reserved: string[];
  disabled: boolean;
  /** seconds a released address is kept from new holders (0: handed out again at once) */
  reuseDelaySeconds: number;
  /** the CIDR may lie in or over a special range (special-range.ts) */
  allowSpecialRanges: boolean;
  /** the isolated network whose address space the pool is in; null: the shared space */
  network: string | null;
  /** the addresses that can ever be handed out: the CIDR less IPv4 network and broadcast */
  usableFirst: bigint;
  usableLast: bigint;
  /** reserved addresses inside the usable span: never handed out */
  reservedSet: RangeSet;
  /** StatefulSet ranges and ip-sets, by rangeOwner: each address in one goes to its owner's pods only */
  ranges: Map<string, AddressRange>;
  /** the union of `ranges` */
  rangeSet: RangeSet;
  /** addresses held by a handle */
  heldSet: RangeSet;
  /** reserved ∪ ranges ∪ held ∪ cooling: what the address chooser and the range finder skip */
  used: RangeSet;
  holders: Map<bigint, Holder>;
  byHandle: Map<string, bigint>;
  /** null when the pool is not handed out in blocks */
  blocks: PoolBlocks | null;
  /** the claimed blocks, by their first address; replaced, never changed in place (drafts share them) */
  claimed: Map<bigint, Readonly<Block>>;
  /**
   * Released addresses still in their reuse delay, each with its release event's time (ms; Infinity
   * while that event is not recorded yet), oldest first: a queue the log's own times expire from
   * the front, so the chooser never scans it.
   */
  cooling: CoolingQueue;
}

/**
 * What decide functions see of a pool: a read-only view. States are shared by every caller through
 * the aggregate cache, so a decision must never change the one it reads.
 */
export interface PoolView {
  readonly name: string;
  readonly exists: boolean;
  readonly cidr: Readonly<Cidr> | null;
  readonly gateway: bigint | null;
  readonly labels: Readonly<Labels>;
  readonly nodeSelector: string | null;
  readonly clusterSelector: string | null;
  readonly reserved: readonly string[];
  readonly disabled: boolean;
  readonly reuseDelaySeconds: number;
  readonly allowSpecialRanges: boolean;
  readonly network: string | null;
  readonly usableFirst: bigint;
  readonly usableLast: bigint;
  readonly reservedSet: ReadonlyRangeSet;
  readonly ranges: ReadonlyMap<string, Readonly<AddressRange>>;
  readonly rangeSet: ReadonlyRangeSet;
  readonly heldSet: ReadonlyRangeSet;
  readonly used: ReadonlyRangeSet;
  readonly holders: ReadonlyMap<bigint, Readonly<Holder>>;
  readonly byHandle: ReadonlyMap<string, bigint>;
  readonly blocks: Readonly<PoolBlocks> | null;
  readonly claimed: ReadonlyMap<bigint, Readonly<Block>>;
  /** read only through first, size, keys and inOrder; draft() for a writable one */
  readonly cooling: CoolingQueue;
}
