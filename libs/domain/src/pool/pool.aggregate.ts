import {
  cidrContains,
  cidrFirst,
  cidrLast,
  formatCidr,
  formatIp,
  parseCidr,
  parseIp,
  parseIpRange,
  RangeSet,
  type Cidr,
} from '@ipledger/ip';
import type { AggregateType } from '../aggregate-type';
import { DomainError, InvalidInputError } from '../errors/domain-error';
import { allocationOwner } from '../allocation/allocation-owner';
import { clusterOf, handleKey, inCluster } from '../cluster/cluster-scope';
import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import type {
  BlockClaimed,
  BlockReleased,
  IpAllocated,
  IpReleased,
  ReleaseCondition,
  PoolCreated,
  PoolDeleted,
  PoolEvent,
  PoolResized,
  PoolUpdated,
  RangeReleased,
  RangeReserved,
} from '../events';
import { unknownEvent } from '../events/unknown-event';

import type { Labels } from '../labels';
import { chooseAddress } from './address-chooser';
import { CoolingQueue } from './cooling-queue';
import { findFreeRange, isFreeSpan } from './free-range-finder';
import { describeRangeOwner, parseRangeOwner, rangeOwner } from './range-owner';
import { ipSetAddress } from '../ip-set/reserve-ip-set';
import { inNetwork } from './pool-network';
import {
  blockCidr,
  blockedPool,
  ownsBlock,
  blockLength,
  blockOf,
  idleBlocks,
  planBlock,
  planRequestedBlock,
  type BlockedPoolView,
} from './block-planner';
import { MAX_BLOCK_BITS } from './pool-blocks';
import type { PoolSpec } from './pool-spec';
import { refuseSpecialRange } from './special-range';
import { usableSpan } from './usable-span';
import { draftPool } from './pool-draft';
import type { Block, Holder, PoolState, PoolView } from './pool-state';

/**
 * Exactly the holder's fields of a request or an event, the optional ones only when present; the
 * owner always, also for events recorded before owners were (allocationOwner).
 */
function holderOf({
  handle,
  cluster,
  node,
  namespace,
  pod,
  podUid,
  owner,
  statefulSet,
  ipSet,
  network,
  borrowed,
  adopted,
}: Holder): Holder {
  return {
    handle,
    ...(cluster ? inCluster(cluster) : {}),
    node,
    namespace,
    pod,
    podUid,
    owner: allocationOwner({ owner, podUid }),
    ...(statefulSet ? { statefulSet } : {}),
    ...(ipSet ? { ipSet } : {}),
    ...(network ? { network } : {}),
    ...(borrowed ? { borrowed } : {}),
    ...(adopted ? { adopted } : {}),
  };
}

export interface PoolCounts {
  capacity: bigint;
  allocated: bigint;
  reservedCount: bigint;
  /** of reservedCount, the addresses of StatefulSet ranges and ip-sets that no pod holds now */
  rangeReservedCount: bigint;
  free: bigint;
}

function emptyPool(): PoolState {
  return {
    name: '',
    exists: false,
    cidr: null,
    gateway: null,
    labels: {},
    nodeSelector: null,
    clusterSelector: null,
    reserved: [],
    disabled: false,
    reuseDelaySeconds: 0,
    allowSpecialRanges: false,
    network: null,
    usableFirst: 0n,
    usableLast: -1n,
    reservedSet: new RangeSet(),
    ranges: new Map(),
    rangeSet: new RangeSet(),
    heldSet: new RangeSet(),
    used: new RangeSet(),
    holders: new Map(),
    byHandle: new Map(),
    blocks: null,
    claimed: new Map(),
    cooling: CoolingQueue.empty(),
  };
}

/** What a CIDR, the reserved list and the gateway make of a pool's addresses (on creation and on every resize). */
function addressSpace(cidr: Cidr, reserved: readonly string[], gateway: bigint | null) {
  const [usableFirst, usableLast] = usableSpan(cidr);
  const reservedSet = new RangeSet();
  for (const entry of reserved) {
    const range = parseIpRange(entry);
    const first = range.first > usableFirst ? range.first : usableFirst;
    const last = range.last < usableLast ? range.last : usableLast;
    if (first <= last) reservedSet.add(first, last);
  }
  if (gateway !== null) reservedSet.add(gateway);
  return { cidr, usableFirst, usableLast, reservedSet };
}

function created(data: PoolCreated['data']): PoolState {
  // a PoolCreated recorded before pools had gateways has none
  const gateway = data.gateway ? parseIp(data.gateway).value : null;
  const space = addressSpace(parseCidr(data.cidr), data.reserved, gateway);
  const { blockSize, blockAffinity, blockReleaseSeconds } = data;
  return {
    ...emptyPool(),
    ...space,
    blocks:
      blockSize === undefined
        ? null
        : { blockSize, blockAffinity: blockAffinity ?? 'borrow', blockReleaseSeconds: blockReleaseSeconds ?? 300 },
    name: data.name,
    exists: true,
    gateway,
    labels: data.labels,
    nodeSelector: data.nodeSelector,
    // absent from PoolCreated recorded before cluster selectors were: every cluster
    clusterSelector: data.clusterSelector ?? null,
    reserved: data.reserved,
    disabled: data.disabled,
    reuseDelaySeconds: data.reuseDelaySeconds ?? 0,
    allowSpecialRanges: data.allowSpecialRanges ?? false,
    // absent from PoolCreated recorded before networks were: the shared space
    network: data.network ?? null,
    used: space.reservedSet.clone(),
  };
}

/** Ranges and the CIDR change rarely (a StatefulSet reconcile, a resize): rebuild the derived sets rather than patch them. */
function rebuildUsed(state: PoolState): PoolState {
  state.rangeSet = new RangeSet();
  for (const { start, end } of state.ranges.values()) state.rangeSet.add(start, end);
  state.used = state.reservedSet.clone();
  for (const set of [state.rangeSet, state.heldSet]) for (const [start, end] of set.runs()) state.used.add(start, end);
  for (const ip of state.cooling.keys()) state.used.add(ip);
  return state;
}

/** Event time in milliseconds: null for an event not recorded yet (a draft's), which no idle-block decision may count on. */
const eventTime = (event: { recordedAt?: Date }): number | null => (event.recordedAt instanceof Date ? event.recordedAt.getTime() : null);

/** The block holding `ip` gains (+1) or loses (-1) an address held by `holder`; a block is replaced, never changed in place. */
function countInBlock(
  state: PoolState,
  ip: bigint,
  holder: { node: string; cluster?: string } | null,
  delta: 1 | -1,
  at: number | null,
): void {
  const pool = blockedPool(state);
  const first = pool && blockOf(pool, ip);
  const block = first === null ? undefined : state.claimed.get(first);
  if (!block || first === null) return;
  const used = block.used + delta;
  const borrowed = block.borrowed + (holder && ownsBlock(block, clusterOf(holder), holder.node) ? 0 : delta);
  state.claimed.set(first, { ...block, used, borrowed, emptiedAt: used === 0 ? at : null });
}

/** `recordedAt`: absent while a batch is decided on a draft (see eventTime) */
type FoldedEvent = { type: string; data: Record<string, unknown>; recordedAt?: Date };
/**
 * The cooling addresses whose delay has passed by `now` (an event's recorded time), oldest first,
 * go back to the free space: what is cooling depends on the log alone, so a replay agrees.
 */
function expireCooling(state: PoolState, now: number): void {
  state.cooling.expire(now - state.reuseDelaySeconds * 1000, (ip) => {
    if (!state.reservedSet.has(ip) && !state.rangeSet.has(ip) && !state.heldSet.has(ip)) state.used.remove(ip);
  });
}

/**
 * Folds one event into `state`, a draft (draftPool) that the caller owns and no one else sees: the one place
 * a pool state is changed. evolve and fold draft first, so the states the cache shares never change.
 * A recorded event's time first expires the cooling addresses whose delay it has passed.
 */
export function foldIntoDraft(state: PoolState, event: FoldedEvent): PoolState {
  if (event.recordedAt && state.cooling.size > 0) expireCooling(state, event.recordedAt.getTime());
  const next = apply(state, event);
  // a shorter delay frees at once what it no longer covers
  if (event.type === 'PoolUpdated' && event.recordedAt && next.cooling.size > 0) expireCooling(next, event.recordedAt.getTime());
  return next;
}

function apply(state: PoolState, event: FoldedEvent): PoolState {
  const e = event as PoolEvent;
  switch (e.type) {
    case 'PoolCreated':
      return created(e.data);
    case 'PoolUpdated': {
      if (e.data.labels !== undefined) state.labels = e.data.labels;
      if (e.data.nodeSelector !== undefined) state.nodeSelector = e.data.nodeSelector;
      if (e.data.clusterSelector !== undefined) state.clusterSelector = e.data.clusterSelector;
      if (e.data.disabled !== undefined) state.disabled = e.data.disabled;
      if (e.data.reuseDelaySeconds !== undefined) state.reuseDelaySeconds = e.data.reuseDelaySeconds;
      if (e.data.allowSpecialRanges !== undefined) state.allowSpecialRanges = e.data.allowSpecialRanges;
      return state;
    }
    case 'PoolResized': {
      Object.assign(state, addressSpace(parseCidr(e.data.cidr), state.reserved, state.gateway));
      for (const ip of [...state.cooling.keys()]) if (ip < state.usableFirst || ip > state.usableLast) state.cooling.delete(ip);
      return rebuildUsed(state);
    }
    case 'PoolDeleted':
      return { ...emptyPool(), name: state.name };
    case 'IpAllocated': {
      const ip = parseIp(e.data.ip).value;
      state.holders.set(ip, holderOf(e.data));
      state.byHandle.set(handleKey(clusterOf(e.data), e.data.handle), ip);
      state.heldSet.add(ip);
      state.used.add(ip);
      countInBlock(state, ip, e.data, 1, null);
      if (state.cooling.size > 0) state.cooling.delete(ip);
      return state;
    }
    case 'IpReleased': {
      const ip = parseIp(e.data.ip).value;
      countInBlock(state, ip, state.holders.get(ip) ?? null, -1, eventTime(event));
      state.holders.delete(ip);
      state.byHandle.delete(handleKey(clusterOf(e.data), e.data.handle));
      state.heldSet.remove(ip);
      // an address of a StatefulSet's range stays reserved for its ordinal
      if (state.reservedSet.has(ip) || state.rangeSet.has(ip)) return state;
      if (state.reuseDelaySeconds > 0) state.cooling.add(ip, event.recordedAt?.getTime() ?? Infinity);
      else state.used.remove(ip);
      return state;
    }
    case 'RangeReserved':
      state.ranges.set(rangeOwner(clusterOf(e.data), e.data.namespace, e.data.name), {
        start: parseIp(e.data.start).value,
        end: parseIp(e.data.end).value,
      });
      return rebuildUsed(state);
    case 'RangeReleased':
      state.ranges.delete(rangeOwner(clusterOf(e.data), e.data.namespace, e.data.name));
      return rebuildUsed(state);
    case 'BlockClaimed': {
      const pool = blockedPool(state)!;
      const first = parseCidr(e.data.cidr).network;
      const last = first + blockLength(pool) - 1n;
      const used = Number(last - first + 1n - state.heldSet.gapCount(first, last));
      const cluster = clusterOf(e.data);
      state.claimed.set(first, {
        first,
        last,
        node: e.data.node,
        cluster,
        used,
        borrowed: 0,
        emptiedAt: used === 0 ? eventTime(event) : null,
      });
      return state;
    }
    case 'BlockReleased':
      state.claimed.delete(parseCidr(e.data.cidr).network);
      return state;
    default:
      return unknownEvent(e);
  }
}

/** The pool after `event`, as a new state (one draft: O(address runs + recent holder changes)). */
function evolve(state: PoolView, event: FoldedEvent): PoolState {
  return foldIntoDraft(draftPool(state), event);
}

/** The pool after `events`, for the cost of one draft however many events. */
function fold(state: PoolView, events: readonly FoldedEvent[]): PoolState {
  return events.reduce(foldIntoDraft, draftPool(state));
}

interface PoolSnapshot {
  name: string;
  created: PoolCreated['data'] | null;
  ranges: Array<RangeReserved['data']>;
  holders: Array<[string, Holder]>;
  /** absent from snapshots taken before blocks were */
  claimed?: Array<{ cidr: string; node: string; cluster?: string; emptiedAt: number | null }>;
  /** address and release time (ms; null: not recorded), oldest first; absent from snapshots taken before reuse delays */
  cooling?: Array<[string, number | null]>;
}

/**
 * Bytes a pool state holds, estimated (measured on Node 20: a holder with its two map entries and
 * strings about 300, a run of an address set about 80): what bounds the aggregate cache.
 */
function sizeOf(state: PoolState): number {
  const runs = state.used.runCount() + state.heldSet.runCount() + state.rangeSet.runCount() + state.reservedSet.runCount();
  return 1024 + 300 * state.holders.size + 80 * runs + 200 * state.ranges.size + 100 * state.cooling.size + 150 * state.claimed.size;
}

export const PoolAggregate: AggregateType<PoolState> = {
  streamPrefix: 'pool',
  initialState: emptyPool,
  evolve,
  fold,
  sizeOf,
  snapshot: {
    // a snapshot lists every holder: a pool holding 100,000 addresses is snapshotted every 100,000 events
    every: (state) => Math.max(200, state.holders.size + state.ranges.size + state.claimed.size),
    serialize(state): PoolSnapshot {
      if (!state.exists || !state.cidr) return { name: state.name, created: null, ranges: [], holders: [] };
      const show = (value: bigint) => formatIp({ family: state.cidr!.family, value });
      const { name, labels, nodeSelector, clusterSelector, reserved, disabled, reuseDelaySeconds, allowSpecialRanges, network } = state;
      return {
        name,
        created: {
          name,
          cidr: formatCidr(state.cidr),
          family: state.cidr.family,
          gateway: poolGateway(state),
          labels,
          nodeSelector,
          reserved,
          disabled,
          ...state.blocks,
          ...(reuseDelaySeconds > 0 ? { reuseDelaySeconds } : {}),
          ...(allowSpecialRanges ? { allowSpecialRanges } : {}),
          ...(network !== null ? { network } : {}),
          ...(clusterSelector !== null ? { clusterSelector } : {}),
        },
        ranges: [...state.ranges].map(([owner, { start, end }]) => {
          const { cluster, namespace, name: rangeName } = parseRangeOwner(owner);
          return { pool: name, namespace, name: rangeName, ...inCluster(cluster), start: show(start), end: show(end) };
        }),
        // in address order: a Map's order depends on how the state was drafted (an address released
        // and given again keeps its place in a draft over the cache, moves last in a fresh fold)
        holders: [...state.holders].sort(byAddress).map(([ip, holder]) => [show(ip), holder]),
        claimed: [...state.claimed].sort(byAddress).map(([, { first, node, cluster, emptiedAt }]) => ({
          cidr: blockCidr(blockedPool(state)!, first),
          node,
          ...inCluster(cluster),
          emptiedAt,
        })),
        cooling: state.cooling.inOrder().map(([ip, releasedAt]) => [show(ip), Number.isFinite(releasedAt) ? releasedAt : null]),
      };
    },
    deserialize(json) {
      const snapshot = json as PoolSnapshot;
      if (!snapshot.created) return { ...emptyPool(), name: snapshot.name };
      // a state made here and seen by no one yet: folded into directly, not drafted a holder at a time
      let state = created(snapshot.created);
      for (const range of snapshot.ranges) state = foldIntoDraft(state, { type: 'RangeReserved', data: range });
      // blocks before holders, so each holder counts in its block
      const claimed = snapshot.claimed ?? [];
      for (const { cidr, node, cluster } of claimed) {
        state = foldIntoDraft(state, {
          type: 'BlockClaimed',
          data: { pool: state.name, cidr, node, ...inCluster(clusterOf({ cluster })) },
        });
      }
      for (const [ip, holder] of snapshot.holders) {
        state = foldIntoDraft(state, { type: 'IpAllocated', data: { ...holder, ip, pool: state.name } });
      }
      for (const { cidr, emptiedAt } of claimed) {
        const first = parseCidr(cidr).network;
        state.claimed.set(first, { ...state.claimed.get(first)!, emptiedAt });
      }
      for (const [ip, releasedAt] of snapshot.cooling ?? []) {
        const value = parseIp(ip).value;
        state.cooling.add(value, releasedAt ?? Infinity);
        state.used.add(value);
      }
      return state;
    },
  },
};

const byAddress = ([a]: [bigint, unknown], [b]: [bigint, unknown]): number => (a < b ? -1 : a > b ? 1 : 0);

/** The pool's gateway as text, null when it has none. */
export function poolGateway(state: PoolView): string | null {
  return state.gateway === null || !state.cidr ? null : formatIp({ family: state.cidr.family, value: state.gateway });
}

export function poolCounts(state: PoolView): PoolCounts {
  const capacity = state.usableLast - state.usableFirst + 1n;
  const allocated = BigInt(state.holders.size);
  // range addresses no pod holds now are held back too
  let rangeReservedCount = 0n;
  for (const { start, end } of state.ranges.values()) rangeReservedCount += state.heldSet.gapCount(start, end);
  const reservedCount = state.reservedSet.count() + rangeReservedCount;
  return { capacity, allocated, reservedCount, rangeReservedCount, free: capacity - allocated - reservedCount };
}

function existing(state: PoolView, name: string): PoolView & { cidr: Cidr } {
  if (!state.exists || !state.cidr) throw new DomainError('POOL_NOT_FOUND', `pool "${name}" does not exist`);
  return state as PoolView & { cidr: Cidr };
}

export function decideCreatePool(state: PoolView, spec: PoolSpec): PoolCreated {
  if (state.exists) throw new DomainError('POOL_EXISTS', `pool "${spec.name}" already exists`);
  return { type: 'PoolCreated', data: { ...spec } };
}

export interface PoolPatch {
  labels?: Labels;
  nodeSelector?: string | null;
  clusterSelector?: string | null;
  disabled?: boolean;
  reuseDelaySeconds?: number;
  allowSpecialRanges?: boolean;
}

/** Returns null when the patch changes nothing, so a repeated PATCH appends no event. */
export function decideUpdatePool(state: PoolView, name: string, patch: PoolPatch): PoolUpdated | null {
  const pool = existing(state, name);
  const data: PoolUpdated['data'] = { name };
  if (patch.labels !== undefined && JSON.stringify(sorted(patch.labels)) !== JSON.stringify(sorted(pool.labels))) {
    data.labels = patch.labels;
  }
  if (patch.nodeSelector !== undefined && patch.nodeSelector !== pool.nodeSelector) data.nodeSelector = patch.nodeSelector;
  if (patch.clusterSelector !== undefined && patch.clusterSelector !== pool.clusterSelector) data.clusterSelector = patch.clusterSelector;
  if (patch.disabled !== undefined && patch.disabled !== pool.disabled) data.disabled = patch.disabled;
  if (patch.reuseDelaySeconds !== undefined && patch.reuseDelaySeconds !== pool.reuseDelaySeconds) {
    data.reuseDelaySeconds = patch.reuseDelaySeconds;
  }
  if (patch.allowSpecialRanges !== undefined && patch.allowSpecialRanges !== pool.allowSpecialRanges) {
    // a pool already there keeps needing it
    refuseSpecialRange(name, pool.cidr, patch.allowSpecialRanges);
    data.allowSpecialRanges = patch.allowSpecialRanges;
  }
  return Object.keys(data).length > 1 ? { type: 'PoolUpdated', data } : null;
}

function sorted(labels: Readonly<Labels>): Array<[string, string]> {
  return Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The pool's CIDR changed in place: to a network that contains it (grow) or to one inside it
 * (shrink), of the same family. Every address held, reserved, in a StatefulSet range or the
 * gateway must stay among those the new CIDR can hand out (never its network or broadcast
 * address); otherwise POOL_IN_USE names the lowest one in the way. Cooling addresses are free and
 * never stop it. Null when the CIDR is the same. A grow into a special range needs
 * `allowSpecialRanges` (the pool's own, unless the same patch sets it). Overlap with other pools is
 * the read model's exclusion constraint's to catch, across pools and replicas (see the handler).
 */
export function decideResizePool(
  state: PoolView,
  name: string,
  cidr: Cidr,
  allowSpecialRanges = state.allowSpecialRanges,
): PoolResized | null {
  const pool = existing(state, name);
  const from = pool.cidr;
  const text = formatCidr(cidr);
  if (cidr.family !== from.family) {
    throw new InvalidInputError('INVALID_CIDR', `pool "${name}" is IPv${from.family} (${formatCidr(from)}); it cannot become ${text}`);
  }
  if (text === formatCidr(from)) return null;
  refuseSpecialRange(name, cidr, allowSpecialRanges);
  const nested =
    cidr.prefixLength < from.prefixLength
      ? cidrContains(cidr, { family: from.family, value: cidrFirst(from) })
      : cidrContains(from, { family: cidr.family, value: cidrFirst(cidr) });
  if (!nested) {
    throw new DomainError(
      'CIDR_NOT_NESTED',
      `pool "${name}" has cidr ${formatCidr(from)}; it can grow to a network that contains it or shrink to one inside it, and ${text} is neither`,
    );
  }
  const withBlocks = blockedPool(pool);
  if (withBlocks) checkBlocksFit(withBlocks, cidr);
  const blocker = firstAddressInTheWay(pool, cidr);
  if (blocker !== null) {
    throw new DomainError(
      'POOL_IN_USE',
      `pool "${name}" cannot become ${text}: ${show(pool, blocker)} ${whatHolds(pool, blocker)} and lies outside the addresses ${text} hands out`,
    );
  }
  return { type: 'PoolResized', data: { name, previousCidr: formatCidr(from), cidr: text } };
}

/**
 * A pool with blocks keeps them across a resize: blocks are aligned to their own size, so the
 * claimed ones stay where they are when the pool grows. The new CIDR must still hold blocks within
 * the limit on their number, and a shrink may not cut off a claimed block, empty or not.
 */
function checkBlocksFit(pool: BlockedPoolView, cidr: Cidr): void {
  const text = formatCidr(cidr);
  const { blockSize } = pool.blocks;
  if (cidr.prefixLength >= blockSize || blockSize - cidr.prefixLength > MAX_BLOCK_BITS) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `pool "${pool.name}" has blockSize ${blockSize}; ${text} must be a network from /${blockSize - MAX_BLOCK_BITS} to /${blockSize - 1} (at most 2^${MAX_BLOCK_BITS} blocks)`,
    );
  }
  const outside = [...pool.claimed.values()]
    .filter((block) => !cidrContains(cidr, { family: cidr.family, value: block.first }))
    .sort((a, b) => (a.first < b.first ? -1 : 1))[0];
  if (outside) {
    throw new DomainError(
      'POOL_IN_USE',
      `pool "${pool.name}" cannot become ${text}: block ${blockCidr(pool, outside.first)} of node "${outside.node}" lies outside it (${outside.used} address(es) held)`,
    );
  }
}

/** The lowest address held, reserved, in a range or the gateway that `cidr` could not hand out, or null. */
function firstAddressInTheWay(pool: PoolView & { cidr: Cidr }, cidr: Cidr): bigint | null {
  const [first, last] = usableSpan(cidr);
  const below: [bigint, bigint] = [cidrFirst(pool.cidr), first - 1n];
  const above: [bigint, bigint] = [last + 1n, cidrLast(pool.cidr)];
  const found: bigint[] = [];
  for (const set of [pool.heldSet, pool.rangeSet, pool.reservedSet]) {
    for (const [from, to] of [below, above]) {
      const ip = set.firstIn(from, to);
      if (ip !== null) found.push(ip);
    }
  }
  // a reserved entry also counts where the old span left it out (a network or broadcast address)
  for (const entry of pool.reserved) {
    const range = parseIpRange(entry);
    if (range.first < cidrFirst(cidr)) found.push(range.first);
    else if (range.last > cidrLast(cidr)) found.push(range.first > cidrLast(cidr) ? range.first : cidrLast(cidr) + 1n);
  }
  return found.reduce<bigint | null>((lowest, ip) => (lowest === null || ip < lowest ? ip : lowest), null);
}

function whatHolds(pool: PoolView & { cidr: Cidr }, ip: bigint): string {
  const holder = pool.holders.get(ip);
  if (holder) return `is held by handle "${holder.handle}" (pod ${holder.namespace}/${holder.pod})`;
  if (ip === pool.gateway) return 'is the gateway';
  const owner = [...pool.ranges].find(([, range]) => range.start <= ip && ip <= range.end)?.[0];
  if (owner !== undefined) return `is in the range of ${describeRangeOwner(owner)}`;
  return 'is reserved';
}

export function decideDeletePool(state: PoolView, name: string): PoolDeleted {
  const pool = existing(state, name);
  if (pool.holders.size > 0) {
    throw new DomainError('POOL_IN_USE', `pool "${name}" still has ${pool.holders.size} allocated address(es); release them first`);
  }
  if (pool.ranges.size > 0) {
    const owners = [...pool.ranges.keys()].map(describeRangeOwner).join(', ');
    throw new DomainError('POOL_IN_USE', `pool "${name}" still holds the range(s) of ${owners}; delete them first`);
  }
  return { type: 'PoolDeleted', data: { name } };
}

export interface AllocationRequest extends Holder {
  /** a specific address, already known to lie in this pool's CIDR */
  ip?: bigint;
  /** the decision's time in ms on the database's clock, for the reuse delay (see chooseAddress) */
  now?: number;
}

/**
 * Decides one address for a handle. A handle that already holds an address here gets the same
 * one back with no event, so a retried request never takes a second address.
 */
export function decideAllocate(state: PoolView, request: AllocationRequest): AllocateDecision {
  const pool = existing(state, state.name);
  const held = pool.byHandle.get(handleKey(clusterOf(request), request.handle));
  if (held !== undefined) return { ip: held, event: null, claim: null };
  if (pool.disabled) throw new DomainError('POOL_DISABLED', `pool "${pool.name}" is disabled and hands out no new addresses`);
  return decidePlaced(pool, request);
}

/**
 * Adoption: the address a running pod already uses (it came from the IPAM the cluster used before)
 * becomes its holder's, so it is never handed out. Only that address, refused as a requested one is
 * (held by another handle: IP_IN_USE; the gateway, reserved, another's range: IP_RESERVED), also in
 * a disabled pool (nothing is handed out: the address is in use already). A handle that already
 * holds its address here gets it back with no event, so a replayed adoption appends nothing.
 */
export function decideAdopt(state: PoolView, request: AllocationRequest & { ip: bigint }): AllocateDecision {
  const pool = existing(state, state.name);
  const held = pool.byHandle.get(handleKey(clusterOf(request), request.handle));
  if (held !== undefined) return { ip: held, event: null, claim: null };
  return decidePlaced(pool, { ...request, adopted: true });
}

function decidePlaced(pool: PoolView & { cidr: Cidr }, request: AllocationRequest): AllocateDecision {
  const { ip, claim, borrowed } = placeAddress(pool, request);
  const holder = holderOf({ ...request, ...(borrowed ? { borrowed } : {}) });
  return {
    ip,
    claim:
      claim === null
        ? null
        : {
            type: 'BlockClaimed',
            data: { pool: pool.name, cidr: blockCidr(blockedPool(pool)!, claim), node: request.node, ...inCluster(clusterOf(request)) },
          },
    event: {
      type: 'IpAllocated',
      data: {
        pool: pool.name,
        ip: formatIp({ family: pool.cidr.family, value: ip }),
        family: pool.cidr.family,
        ...holder,
        ...inNetwork(pool),
      },
    },
  };
}

export interface AllocateDecision {
  ip: bigint;
  /** null when the handle already held this address (a retried request) */
  event: IpAllocated | null;
  /** the block the node claims for the address, appended before it; null when none */
  claim: BlockClaimed | null;
}

/**
 * The address, and in a pool with blocks the block it comes from (block-planner.ts). A StatefulSet
 * ordinal's address in its range is the StatefulSet's, and an ip-set pod's address in its set the
 * workload's, wherever the range lies: no block is claimed for either.
 */
function placeAddress(pool: PoolView & { cidr: Cidr }, request: AllocationRequest): { ip: bigint; claim: bigint | null; borrowed?: true } {
  if (request.ipSet) return { ip: ipSetAddress(pool, request.ipSet), claim: null };
  const owner = request.statefulSet && rangeOwner(clusterOf(request), request.statefulSet.namespace, request.statefulSet.name);
  const withBlocks = blockedPool(pool);
  if (!withBlocks || (request.ip !== undefined && pool.rangeSet.has(request.ip))) {
    return { ip: chooseAddress(pool, request.ip, owner, request.now), claim: null };
  }
  if (request.ip !== undefined) {
    const ip = chooseAddress(pool, request.ip, owner, request.now);
    const { claim, borrowed } = planRequestedBlock(withBlocks, clusterOf(request), request.node, ip);
    return { ip, claim, ...(borrowed ? { borrowed } : {}) };
  }
  const { span, claim, borrowed } = planBlock(withBlocks, clusterOf(request), request.node);
  return { ip: chooseAddress(pool, undefined, owner, request.now, span), claim, ...(borrowed ? { borrowed } : {}) };
}

/** `cluster`: the handle's (a handle names an allocation within its cluster) */
export function decideRelease(
  state: PoolView,
  handle: string,
  condition: ReleaseCondition = {},
  cluster = DEFAULT_CLUSTER,
): IpReleased | null {
  const ip = state.byHandle.get(handleKey(cluster, handle));
  const holder = ip === undefined ? undefined : state.holders.get(ip);
  if (ip === undefined || !holder || !state.cidr) return null;
  // an address recorded without a pod uid cannot be told apart, so it goes with the pod's name
  if (condition.podUid !== undefined && holder.podUid !== null && holder.podUid !== condition.podUid) return null;
  const { node, namespace, pod } = holder;
  const data: IpReleased['data'] = {
    pool: state.name,
    ip: formatIp({ family: state.cidr.family, value: ip }),
    handle,
    ...inCluster(cluster),
    node,
    namespace,
    pod,
    ...inNetwork(state),
  };
  return { type: 'IpReleased', data: condition.reason ? { ...data, reason: condition.reason } : data };
}

const show = (pool: PoolView & { cidr: Cidr }, value: bigint) => formatIp({ family: pool.cidr.family, value });

/**
 * A first range of `length` continuous free addresses for a StatefulSet (see free-range-finder.ts),
 * or null when the pool has no such run: its pods then get addresses on the fly.
 */
export function decideReserveRange(
  state: PoolView,
  cluster: string,
  namespace: string,
  name: string,
  length: bigint,
): RangeReserved | null {
  const pool = existing(state, state.name);
  const owner = rangeOwner(cluster, namespace, name);
  if (pool.ranges.has(owner)) throw new Error(`${describeRangeOwner(owner)} already has a range: resize it`);
  const range = findFreeRange(pool, length);
  return range && rangeReserved(pool, cluster, namespace, name, range.start, range.end);
}

/** The owner's range in the pool is now `start..end`. */
function rangeReserved(
  pool: PoolView & { cidr: Cidr },
  cluster: string,
  namespace: string,
  name: string,
  start: bigint,
  end: bigint,
): RangeReserved {
  return {
    type: 'RangeReserved',
    data: { pool: pool.name, namespace, name, ...inCluster(cluster), start: show(pool, start), end: show(pool, end), ...inNetwork(pool) },
  };
}

/**
 * The StatefulSet's range resized in place to `length` addresses from the same start. Growing
 * needs the addresses after the range to be free; when they are not, null (the extra ordinals get
 * addresses on the fly). Shrinking always succeeds: addresses above the new end that pods still
 * hold stay theirs and become free when released. The same length is null too: nothing to do.
 */
export function decideResizeRange(state: PoolView, cluster: string, namespace: string, name: string, length: bigint): RangeReserved | null {
  const pool = existing(state, state.name);
  const owner = rangeOwner(cluster, namespace, name);
  const range = pool.ranges.get(owner);
  if (!range) throw new Error(`${describeRangeOwner(owner)} has no range in pool "${pool.name}"`);
  const end = range.start + length - 1n;
  if (end === range.end || length < 1n) return null;
  if (end > range.end && !isFreeSpan(pool, range.end + 1n, end)) return null;
  return rangeReserved(pool, cluster, namespace, name, range.start, end);
}

/** The pool's empty blocks whose blockReleaseSeconds have passed at `now` (milliseconds, the database clock) go back. */
export function decideReleaseIdleBlocks(state: PoolView, now: number): BlockReleased[] {
  const pool = blockedPool(state);
  return pool ? idleBlocks(pool, now).map((block) => blockReleased(pool, block, 'idle')) : [];
}

/** A deleted node's empty blocks go back at once; one still holding addresses stays until they are freed. */
export function decideReleaseNodeBlocks(state: PoolView, cluster: string, node: string): BlockReleased[] {
  const pool = blockedPool(state);
  if (!pool) return [];
  return [...pool.claimed.values()]
    .filter((block) => ownsBlock(block, cluster, node) && block.used === 0)
    .map((block) => blockReleased(pool, block, 'node-deleted'));
}

function blockReleased(pool: BlockedPoolView, block: Readonly<Block>, reason: BlockReleased['data']['reason']): BlockReleased {
  const emptiedAt = block.emptiedAt === null ? null : new Date(block.emptiedAt).toISOString();
  return {
    type: 'BlockReleased',
    data: { pool: pool.name, cidr: blockCidr(pool, block.first), node: block.node, ...inCluster(block.cluster), reason, emptiedAt },
  };
}

export function decideReleaseRange(state: PoolView, cluster: string, namespace: string, name: string): RangeReleased | null {
  return state.ranges.has(rangeOwner(cluster, namespace, name))
    ? { type: 'RangeReleased', data: { pool: state.name, namespace, name, ...inCluster(cluster) } }
    : null;
}
