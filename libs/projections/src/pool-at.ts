import { allocationOwner, blockCidr, blockedPool, blockOf, PoolAggregate, poolCounts, poolGateway, type PoolState } from '@ipledger/domain';
import { formatCidr, formatIp } from '@ipledger/ip';
import { readStream, type RecordedEvent } from '@ipledger/event-store';
import type { AllocationView } from './allocation-queries';
import type { BlockView } from './block-queries';
import type { PoolView } from './pool-queries';
import type { Pool } from 'pg';

/** A pool's stream folded up to an instant: the aggregate as it was then, and when it was created. */
async function foldPoolAt(db: Pool, name: string, at: Date): Promise<{ state: PoolState; events: RecordedEvent[] } | null> {
  const events = await readStream(db, `${PoolAggregate.streamPrefix}-${name}`, 0, { until: at });
  const state = PoolAggregate.fold!(PoolAggregate.initialState(), events);
  return state.exists ? { state, events } : null;
}

/** GET /v1/pools/{name}?at=: the pool rebuilt from its events up to that instant (null: it did not exist then). */
export async function findPoolAt(db: Pool, name: string, at: Date): Promise<PoolView | null> {
  const folded = await foldPoolAt(db, name, at);
  if (!folded) return null;
  const { state, events } = folded;
  const counts = poolCounts(state);
  const family = state.cidr!.family;
  const created = events.filter((e) => e.type === 'PoolCreated').at(-1)!;
  return {
    name: state.name,
    cidr: formatCidr(state.cidr!),
    family,
    gateway: poolGateway(state),
    labels: state.labels,
    nodeSelector: state.nodeSelector,
    reserved: state.reserved,
    disabled: state.disabled,
    ...state.blocks,
    reuseDelaySeconds: state.reuseDelaySeconds,
    allowSpecialRanges: state.allowSpecialRanges,
    capacity: counts.capacity.toString(),
    allocated: counts.allocated.toString(),
    reservedCount: counts.reservedCount.toString(),
    rangeReservedCount: counts.rangeReservedCount.toString(),
    free: counts.free.toString(),
    statefulSetRanges: [...state.ranges]
      .sort(([, a], [, b]) => (a.start < b.start ? -1 : 1))
      .map(([owner, range]) => {
        const [namespace, name] = owner.split('/');
        return { namespace, name, start: formatIp({ family, value: range.start }), end: formatIp({ family, value: range.end }) };
      }),
    version: events.at(-1)!.version,
    createdAt: created.recordedAt.toISOString(),
    updatedAt: events.at(-1)!.recordedAt.toISOString(),
  };
}

/** GET /v1/allocations?pool=&at=: who held which address of the pool at that instant, by handle. */
export async function findAllocationsAt(db: Pool, pool: string, at: Date): Promise<AllocationView[]> {
  const folded = await foldPoolAt(db, pool, at);
  if (!folded) return [];
  const { state, events } = folded;
  const cidr = formatCidr(state.cidr!);
  const allocatedAt = new Map<string, string>();
  for (const e of events) if (e.type === 'IpAllocated') allocatedAt.set(e.data.handle as string, e.recordedAt.toISOString());
  return [...state.holders]
    .map(
      ([ip, h]): AllocationView => ({
        handle: h.handle,
        ip: formatIp({ family: state.cidr!.family, value: ip }),
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
        allocatedAt: allocatedAt.get(h.handle)!,
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
    if (holder.node !== block.node) count.borrowed++;
    counts.set(block.first, count);
  }
  return [...withBlocks.claimed.values()]
    .sort((a, b) => (a.first < b.first ? -1 : 1))
    .map((block) => ({
      cidr: blockCidr(withBlocks, block.first),
      pool,
      node: block.node,
      ...(counts.get(block.first) ?? { used: 0, borrowed: 0 }),
    }));
}
