import type { Cidr, RangeSet } from '@ipledger/ip';
import type { IpAllocated } from '../events';
import type { Labels } from '../labels';

/** Who holds an address: what IpAllocated recorded, less what the pool itself knows (name, address, family). */
export type Holder = Omit<IpAllocated['data'], 'pool' | 'ip' | 'family'>;

export interface AddressRange {
  start: bigint;
  end: bigint;
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
  reserved: string[];
  disabled: boolean;
  /** the addresses that can ever be handed out: the CIDR less IPv4 network and broadcast */
  usableFirst: bigint;
  usableLast: bigint;
  /** reserved addresses inside the usable span: never handed out */
  reservedSet: RangeSet;
  /** StatefulSet ranges, by rangeOwner: each address in one goes to that StatefulSet's pods only */
  ranges: Map<string, AddressRange>;
  /** the union of `ranges` */
  rangeSet: RangeSet;
  /** addresses held by a handle */
  heldSet: RangeSet;
  /** reserved ∪ ranges ∪ held: what the address chooser and the range finder skip */
  used: RangeSet;
  holders: Map<bigint, Holder>;
  byHandle: Map<string, bigint>;
}
