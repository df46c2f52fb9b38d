import {
  allocationOwner,
  ownsBlock,
  parseRangeOwner,
  blockCidr,
  clusterOf,
  blockedPool,
  blockOf,
  PoolAggregate,
  poolCounts,
  poolGateway,
  type PoolState,
} from '@ipledger/domain';
import { formatCidr, formatIp } from '@ipledger/ip';
import { readSnapshotAt, readStream } from '@ipledger/event-store';
import type { AllocationView } from './allocation-queries';
import type { BlockView } from './block-queries';
import type { PoolView } from './pool-queries';
import { readHeldSince } from './read-held-since';
import { readPoolCreatedAt } from './read-pool-created-at';
import type { Pool } from 'pg';

/** Events a replay reads and folds at a time: a page's rows are all it holds besides the state. */
const REPLAY_PAGE = 1000;

interface PoolThen {
  streamId: string;
  state: PoolState;
  /** the last event at or before the instant */
  version: number;
  position: number;
  recordedAt: Date;
}

/**
 * A pool's stream folded up to an instant: from the newest snapshot at or before it, then the
 * events after that one in pages (each read yields to requests waiting, allocations first), so a
 * replay costs what the pool holds, not the length of its history (null: it did not exist then).
 */
async function foldPoolAt(db: Pool, name: string, at: Date): Promise<PoolThen | null> {
  const streamId = `${PoolAggregate.streamPrefix}-${name}`;
  const snapshot = await readSnapshotAt(db, streamId, at);
  // a snapshot this release cannot read (a newer release's format) counts as none: replay from the start
  const restored = snapshot && PoolAggregate.snapshot!.deserialize(snapshot.state);
  let state = restored ?? PoolAggregate.initialState();
  let last: Omit<PoolThen, 'state' | 'streamId'> | null = restored ? snapshot : null;
  for (;;) {
    const events = await readStream(db, streamId, last?.version ?? 0, { until: at, limit: REPLAY_PAGE });
    if (events.length > 0) {
      state = PoolAggregate.fold!(state, events);
      last = events.at(-1)!;
    }
    if (events.length < REPLAY_PAGE) break;
  }
  return state.exists && last ? { streamId, state, version: last.version, position: last.position, recordedAt: last.recordedAt } : null;
}

/** GET /v1/pools/{name}?at=: the pool rebuilt from its events up to that instant (null: it did not exist then). */
export async function findPoolAt(db: Pool, name: string, at: Date): Promise<PoolView | null> {
  const folded = await foldPoolAt(db, name, at);
  if (!folded) return null;
  const { state } = folded;
  const counts = poolCounts(state);
  const family = state.cidr!.family;
  const created = await readPoolCreatedAt(db, folded.streamId, folded.version);
  return {
    name: state.name,
    cidr: formatCidr(state.cidr!),
    family,
    gateway: poolGateway(state),
    labels: state.labels,
    nodeSelector: state.nodeSelector,
    clusterSelector: state.clusterSelector,
    reserved: state.reserved,
    disabled: state.disabled,
    ...state.blocks,
    reuseDelaySeconds: state.reuseDelaySeconds,
    allowSpecialRanges: state.allowSpecialRanges,
    network: state.network,
    capacity: counts.capacity.toString(),
    allocated: counts.allocated.toString(),
    reservedCount: counts.reservedCount.toString(),
    rangeReservedCount: counts.rangeReservedCount.toString(),
    free: counts.free.toString(),
    statefulSetRanges: [...state.ranges]
      .sort(([, a], [, b]) => (a.start < b.start ? -1 : 1))
      .map(([owner, range]) => {
        const { cluster, namespace, name } = parseRangeOwner(owner);
        return { cluster, namespace, name, start: formatIp({ family, value: range.start }), end: formatIp({ family, value: range.end }) };
      }),
    version: folded.version,
    createdAt: created!.toISOString(),
    updatedAt: folded.recordedAt.toISOString(),
  };
}

/** GET /v1/allocations?pool=&at=: who held which address of the pool at that instant, by handle. */
export async function findAllocationsAt(db: Pool, pool: string, at: Date): Promise<AllocationView[]> {
  const folded = await foldPoolAt(db, pool, at);
  if (!folded) return [];
  const { state } = folded;
  const cidr = formatCidr(state.cidr!);
  const held = [...state.holders].map(([ip, holder]) => ({ ip: formatIp({ family: state.cidr!.family, value: ip }), holder }));
  const heldSince = await readHeldSince(
    db,
    folded.streamId,
    folded.position,
    held.map(({ ip }) => ip),
  );
  return held
    .map(
      ({ ip, holder: h }): AllocationView => ({
        handle: h.handle,
        cluster: clusterOf(h),
        ip,
        prefixLength: state.cidr!.prefixLength,
        cidr,
        pool,
        ...(state.gateway === null ? {} : { gateway: poolGateway(state)! }),
        node: h.node,
        namespace: h.namespace,
        pod: h.pod,
        podUid: h.podUid,
        owner: allocationOwner(h),
        family: state.cidr!.family,
        allocatedAt: heldSince.get(ip)!.toISOString(),
        ...(h.statefulSet ? { statefulSet: h.statefulSet } : {}),
        ...(h.network ? { network: h.network } : {}),
      }),
    )
    .sort((a, b) => (a.handle < b.handle ? -1 : a.handle > b.handle ? 1 : 0));
}

/**
 * GET /v1/pools/{name}/blocks?at=: the blocks claimed at that instant, by first address, with the
 * addresses held in each then and how many of those other nodes held (null: no such pool then).
 */
export async function findBlocksAt(db: Pool, pool: string, at: Date): Promise<BlockView[] | null> {
  const folded = await foldPoolAt(db, pool, at);
  if (!folded) return null;
  const withBlocks = blockedPool(folded.state);
  if (!withBlocks) return [];
  const counts = new Map<bigint, { used: number; borrowed: number }>();
  for (const [ip, holder] of withBlocks.holders) {
    const block = withBlocks.claimed.get(blockOf(withBlocks, ip));
    if (!block) continue;
    const count = counts.get(block.first) ?? { used: 0, borrowed: 0 };
    count.used++;
    if (!ownsBlock(block, clusterOf(holder), holder.node)) count.borrowed++;
    counts.set(block.first, count);
  }
  return [...withBlocks.claimed.values()]
    .sort((a, b) => (a.first < b.first ? -1 : 1))
    .map((block) => ({
      cidr: blockCidr(withBlocks, block.first),
      pool,
      ...(withBlocks.network === null ? {} : { network: withBlocks.network }),
      node: block.node,
      cluster: block.cluster,
      ...(counts.get(block.first) ?? { used: 0, borrowed: 0 }),
    }));
}
