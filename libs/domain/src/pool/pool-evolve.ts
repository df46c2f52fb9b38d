import { parseCidr, parseIp, parseIpRange, RangeSet, type Cidr } from '@ipledger/ip';
import { clusterOf, handleKey } from '../cluster/cluster-scope';
import type { PoolCreated, PoolEvent } from '../events';
import { unknownEvent } from '../events/unknown-event';
import { blockedPool, blockLength, blockOf, ownsBlock } from './block-planner';
import { CoolingQueue } from './cooling-queue';
import { holderOf } from './holder';
import { draftPool } from './pool-draft';
import type { PoolState, PoolView } from './pool-state';
import { rangeOwner } from './range-owner';
import { usableSpan } from './usable-span';

export function emptyPool(): PoolState {
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

/** The pool a PoolCreated makes, holding nothing yet. */
export function createdPool(data: PoolCreated['data']): PoolState {
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
      return createdPool(e.data);
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
export function evolvePool(state: PoolView, event: FoldedEvent): PoolState {
  return foldIntoDraft(draftPool(state), event);
}

/** The pool after `events`, for the cost of one draft however many events. */
export function foldPool(state: PoolView, events: readonly FoldedEvent[]): PoolState {
  return events.reduce(foldIntoDraft, draftPool(state));
}
