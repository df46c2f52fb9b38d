import { cidrFirst, cidrLast, formatCidr, formatIp, parseCidr, parseIp, parseIpRange, RangeSet, type Cidr } from '@ipledger/ip';
import type { AggregateType } from '../aggregate-type';
import { DomainError } from '../errors/domain-error';
import type { IpAllocated, IpReleased, PoolCreated, PoolDeleted, PoolEvent, PoolUpdated } from '../events';
import type { Labels } from '../labels';
import { chooseAddress } from './address-chooser';
import type { PoolSpec } from './pool-spec';

export interface Holder {
  handle: string;
  node: string;
  namespace: string;
  pod: string;
  podUid: string | null;
}

export interface PoolState {
  name: string;
  /** false before creation and after deletion (a deleted name can be created again) */
  exists: boolean;
  cidr: Cidr | null;
  labels: Labels;
  nodeSelector: string | null;
  reserved: string[];
  disabled: boolean;
  /** the addresses that can ever be handed out: the CIDR less IPv4 network and broadcast */
  usableFirst: bigint;
  usableLast: bigint;
  /** reserved addresses inside the usable span: never handed out */
  reservedSet: RangeSet;
  /** reserved ∪ allocated: what the address chooser skips */
  used: RangeSet;
  holders: Map<bigint, Holder>;
  byHandle: Map<string, bigint>;
}

export interface PoolCounts {
  capacity: bigint;
  allocated: bigint;
  reservedCount: bigint;
  free: bigint;
}

function emptyPool(): PoolState {
  return {
    name: '',
    exists: false,
    cidr: null,
    labels: {},
    nodeSelector: null,
    reserved: [],
    disabled: false,
    usableFirst: 0n,
    usableLast: -1n,
    reservedSet: new RangeSet(),
    used: new RangeSet(),
    holders: new Map(),
    byHandle: new Map(),
  };
}

/** IPv4 subnets shorter than /31 lose their network and broadcast addresses (RFC 3021 exempts /31). */
function usableSpan(cidr: Cidr): [bigint, bigint] {
  const first = cidrFirst(cidr);
  const last = cidrLast(cidr);
  return cidr.family === 4 && cidr.prefixLength < 31 ? [first + 1n, last - 1n] : [first, last];
}

function created(state: PoolState, data: PoolCreated['data']): PoolState {
  const cidr = parseCidr(data.cidr);
  const [usableFirst, usableLast] = usableSpan(cidr);
  const reservedSet = new RangeSet();
  for (const entry of data.reserved) {
    const range = parseIpRange(entry);
    const first = range.first > usableFirst ? range.first : usableFirst;
    const last = range.last < usableLast ? range.last : usableLast;
    if (first <= last) reservedSet.add(first, last);
  }
  return {
    ...emptyPool(),
    name: data.name,
    exists: true,
    cidr,
    labels: data.labels,
    nodeSelector: data.nodeSelector,
    reserved: data.reserved,
    disabled: data.disabled,
    usableFirst,
    usableLast,
    reservedSet,
    used: reservedSet.clone(),
  };
}

function evolve(state: PoolState, event: { type: string; data: Record<string, unknown> }): PoolState {
  const e = event as PoolEvent;
  switch (e.type) {
    case 'PoolCreated':
      return created(state, e.data);
    case 'PoolUpdated': {
      if (e.data.labels !== undefined) state.labels = e.data.labels;
      if (e.data.nodeSelector !== undefined) state.nodeSelector = e.data.nodeSelector;
      if (e.data.disabled !== undefined) state.disabled = e.data.disabled;
      return state;
    }
    case 'PoolDeleted':
      return { ...emptyPool(), name: state.name };
    case 'IpAllocated': {
      const ip = parseIp(e.data.ip).value;
      const { handle, node, namespace, pod, podUid } = e.data;
      state.holders.set(ip, { handle, node, namespace, pod, podUid });
      state.byHandle.set(handle, ip);
      state.used.add(ip);
      return state;
    }
    case 'IpReleased': {
      const ip = parseIp(e.data.ip).value;
      state.holders.delete(ip);
      state.byHandle.delete(e.data.handle);
      state.used.remove(ip);
      return state;
    }
    default:
      return state;
  }
}

interface PoolSnapshot {
  name: string;
  created: PoolCreated['data'] | null;
  holders: Array<[string, Holder]>;
}

export const PoolAggregate: AggregateType<PoolState> = {
  streamPrefix: 'pool',
  initialState: emptyPool,
  evolve,
  snapshot: {
    every: 200,
    serialize(state): PoolSnapshot {
      if (!state.exists || !state.cidr) return { name: state.name, created: null, holders: [] };
      const { name, labels, nodeSelector, reserved, disabled } = state;
      return {
        name,
        created: {
          name,
          cidr: formatCidr(state.cidr),
          family: state.cidr.family,
          labels,
          nodeSelector,
          reserved,
          disabled,
        },
        holders: [...state.holders].map(([ip, holder]) => [formatIp({ family: state.cidr!.family, value: ip }), holder]),
      };
    },
    deserialize(json) {
      const snapshot = json as PoolSnapshot;
      if (!snapshot.created) return { ...emptyPool(), name: snapshot.name };
      let state = created(emptyPool(), snapshot.created);
      for (const [ip, holder] of snapshot.holders) {
        state = evolve(state, { type: 'IpAllocated', data: { ...holder, ip, pool: state.name } });
      }
      return state;
    },
  },
};

export function poolCounts(state: PoolState): PoolCounts {
  const capacity = state.usableLast - state.usableFirst + 1n;
  const allocated = BigInt(state.holders.size);
  const reservedCount = state.reservedSet.count();
  return { capacity, allocated, reservedCount, free: capacity - allocated - reservedCount };
}

function existing(state: PoolState, name: string): PoolState & { cidr: Cidr } {
  if (!state.exists || !state.cidr) throw new DomainError('POOL_NOT_FOUND', `pool "${name}" does not exist`);
  return state as PoolState & { cidr: Cidr };
}

export function decideCreatePool(state: PoolState, spec: PoolSpec): PoolCreated {
  if (state.exists) throw new DomainError('POOL_EXISTS', `pool "${spec.name}" already exists`);
  return { type: 'PoolCreated', data: { ...spec } };
}

export interface PoolPatch {
  labels?: Labels;
  nodeSelector?: string | null;
  disabled?: boolean;
}

/** Returns null when the patch changes nothing, so a repeated PATCH appends no event. */
export function decideUpdatePool(state: PoolState, name: string, patch: PoolPatch): PoolUpdated | null {
  const pool = existing(state, name);
  const data: PoolUpdated['data'] = { name };
  if (patch.labels !== undefined && JSON.stringify(sorted(patch.labels)) !== JSON.stringify(sorted(pool.labels))) {
    data.labels = patch.labels;
  }
  if (patch.nodeSelector !== undefined && patch.nodeSelector !== pool.nodeSelector) data.nodeSelector = patch.nodeSelector;
  if (patch.disabled !== undefined && patch.disabled !== pool.disabled) data.disabled = patch.disabled;
  return Object.keys(data).length > 1 ? { type: 'PoolUpdated', data } : null;
}

function sorted(labels: Labels): Array<[string, string]> {
  return Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export function decideDeletePool(state: PoolState, name: string): PoolDeleted {
  const pool = existing(state, name);
  if (pool.holders.size > 0) {
    throw new DomainError('POOL_IN_USE', `pool "${name}" still has ${pool.holders.size} allocated address(es); release them first`);
  }
  return { type: 'PoolDeleted', data: { name } };
}

export interface AllocationRequest extends Holder {
  /** a specific address, already known to lie in this pool's CIDR */
  ip?: bigint;
}

/**
 * Decides one address for a handle. A handle that already holds an address here gets the same
 * one back with no event, so a retried request never takes a second address.
 */
export function decideAllocate(state: PoolState, request: AllocationRequest): { ip: bigint; event: IpAllocated | null } {
  const pool = existing(state, state.name);
  const held = pool.byHandle.get(request.handle);
  if (held !== undefined) return { ip: held, event: null };
  if (pool.disabled) throw new DomainError('POOL_DISABLED', `pool "${pool.name}" is disabled and hands out no new addresses`);
  const ip = chooseAddress(pool, request.ip);
  const { handle, node, namespace, pod, podUid } = request;
  return {
    ip,
    event: {
      type: 'IpAllocated',
      data: {
        pool: pool.name,
        ip: formatIp({ family: pool.cidr.family, value: ip }),
        family: pool.cidr.family,
        handle,
        node,
        namespace,
        pod,
        podUid,
      },
    },
  };
}

export function decideRelease(state: PoolState, handle: string): IpReleased | null {
  const ip = state.byHandle.get(handle);
  if (ip === undefined || !state.cidr) return null;
  return { type: 'IpReleased', data: { pool: state.name, ip: formatIp({ family: state.cidr.family, value: ip }), handle } };
}
