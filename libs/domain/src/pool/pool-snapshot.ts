import { formatCidr, parseCidr, parseIp } from '@ipledger/ip';
import { clusterOf, inCluster } from '../cluster/cluster-scope';
import type { PoolCreated, RangeReserved } from '../events';
import { blockCidr, blockedPool } from './block-planner';
import { poolAddress } from './pool-address';
import { createdPool, emptyPool, foldIntoDraft } from './pool-evolve';
import { poolGateway } from './pool-gateway';
import type { Holder, PoolState } from './pool-state';
import { parseRangeOwner } from './range-owner';

/**
 * The format serialize writes. A release reads its own and every older one; a newer one (left by a
 * release rolled back from) it cannot read, and says so rather than guess (see deserializePool).
 */
export const POOL_SNAPSHOT_FORMAT = 2;

type Claimed = Array<{ cidr: string; node: string; cluster?: string; emptiedAt: number | null }>;
/** address and release time (ms; null: not recorded), oldest first */
type Cooling = Array<[string, number | null]>;

/** A pool that does not exist (never created, or deleted), which keeps only its name. */
interface NoPool {
  name: string;
  created: null;
  ranges: [];
  holders: [];
}

interface ExistingPool {
  name: string;
  created: PoolCreated['data'];
  ranges: Array<RangeReserved['data']>;
  holders: Array<[string, Holder]>;
  claimed: Claimed;
  cooling: Cooling;
}

/** Format 2, the current one: `format` written. */
export type PoolSnapshot = (NoPool | ExistingPool) & { format: typeof POOL_SNAPSHOT_FORMAT };

/** Format 1: no `format` field; `claimed` absent from snapshots taken before blocks were, `cooling` from those before reuse delays. */
type PoolSnapshotFormat1 = NoPool | (Omit<ExistingPool, 'claimed' | 'cooling'> & { claimed?: Claimed; cooling?: Cooling });

export function serializePool(state: PoolState): PoolSnapshot {
  const format = POOL_SNAPSHOT_FORMAT;
  if (!state.exists || !state.cidr) return { format, name: state.name, created: null, ranges: [], holders: [] };
  const pool = { cidr: state.cidr };
  const show = (value: bigint) => poolAddress(pool, value);
  const { name, labels, nodeSelector, clusterSelector, reserved, disabled, reuseDelaySeconds, allowSpecialRanges, network } = state;
  return {
    format,
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
}

const byAddress = ([a]: [bigint, unknown], [b]: [bigint, unknown]): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The state a stored snapshot holds, upgraded from an older format; null for a format this release
 * does not know (a newer release's): the caller then replays the stream from its start instead.
 */
export function deserializePool(json: unknown): PoolState | null {
  switch ((json as { format?: unknown }).format) {
    case undefined:
      return restore(fromFormat1(json as PoolSnapshotFormat1));
    case POOL_SNAPSHOT_FORMAT:
      return restore(json as PoolSnapshot);
    default:
      return null;
  }
}

function fromFormat1(snapshot: PoolSnapshotFormat1): PoolSnapshot {
  const format = POOL_SNAPSHOT_FORMAT;
  if (!snapshot.created) return { ...snapshot, format };
  return { ...snapshot, format, claimed: snapshot.claimed ?? [], cooling: snapshot.cooling ?? [] };
}

/**
 * Rebuilt by folding synthetic events rather than set field by field: a block's used and borrowed
 * counts, and the sets every address is in, are the fold's to work out (pool-evolve.ts), and a
 * second copy of those rules here could drift from it. The times the events cannot carry
 * (emptiedAt, cooling release times) are set after.
 */
function restore(snapshot: PoolSnapshot): PoolState {
  if (!snapshot.created) return { ...emptyPool(), name: snapshot.name };
  // a state made here and seen by no one yet: folded into directly, not drafted a holder at a time
  let state = createdPool(snapshot.created);
  for (const range of snapshot.ranges) state = foldIntoDraft(state, { type: 'RangeReserved', data: range });
  // blocks before holders, so each holder counts in its block
  for (const { cidr, node, cluster } of snapshot.claimed) {
    state = foldIntoDraft(state, {
      type: 'BlockClaimed',
      data: { pool: state.name, cidr, node, ...inCluster(clusterOf({ cluster })) },
    });
  }
  for (const [ip, holder] of snapshot.holders) {
    state = foldIntoDraft(state, { type: 'IpAllocated', data: { ...holder, ip, pool: state.name } });
  }
  for (const { cidr, emptiedAt } of snapshot.claimed) {
    const first = parseCidr(cidr).network;
    state.claimed.set(first, { ...state.claimed.get(first)!, emptiedAt });
  }
  for (const [ip, releasedAt] of snapshot.cooling) {
    const value = parseIp(ip).value;
    state.cooling.add(value, releasedAt ?? Infinity);
    state.used.add(value);
  }
  return state;
}
