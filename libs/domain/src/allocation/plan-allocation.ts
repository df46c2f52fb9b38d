import { cidrContains, formatCidr, formatIp, parseCidr, parseIp } from '@ipledger/ip';
import { DomainError } from '../errors/domain-error';
import type { BlockClaimed, IpAllocated, RangeReserved, StatefulSetRef } from '../events';
import { coolingNote } from '../pool/address-chooser';
import { decideAllocate } from '../pool/decide-allocate';
import { poolGateway } from '../pool/pool-gateway';
import type { Holder, PoolView } from '../pool/pool-state';
import { addressForOrdinal } from '../statefulset/statefulset-pod';
import type { Reservation } from '../statefulset/statefulset.aggregate';

/** A pool the planner may use, in the order of preference: its name (a deleted pool's state forgets it) and its state. */
export interface LoadedPool {
  name: string;
  state: PoolView;
}

export type PassOverReason = 'full' | 'disabled' | 'deleted';

export interface PassedOver {
  pool: string;
  reason: PassOverReason;
  /** why a pool with blocks had nothing for this node (block-planner.ts), which its blocks alone explain */
  why?: string;
  /** a full pool's addresses cooling down after release, and when the first is free again */
  cooling?: string;
}

/** Refusals that pass over a pool for the next one, rather than fail the request. */
const PASS_OVER: Partial<Record<string, PassOverReason>> = { POOL_EXHAUSTED: 'full', POOL_DISABLED: 'disabled', POOL_NOT_FOUND: 'deleted' };

export interface AllocationPlanRequest extends Holder {
  family: 4 | 6;
  /** a specific address of `family` */
  ip?: bigint;
  /**
   * The ordinal's address in its StatefulSet's range: that pool and that address, no other, so a
   * refusal fails the request instead of passing the pool over.
   */
  pinned?: boolean;
  /** the decision's time in ms on the database's clock, for the reuse delay (see chooseAddress) */
  now?: number;
}

export interface AllocationDecision {
  pool: string;
  ip: bigint;
  /** null when the handle already held this address in this pool (a retried request) */
  event: IpAllocated | null;
  /** the block the node claims first, in a pool with blocks */
  claim: BlockClaimed | null;
  /** the events to append, in order (an ip-set reserved by its workload's first pod before its address) */
  events: Array<RangeReserved | BlockClaimed | IpAllocated>;
  /** the pool's CIDR and gateway as text, for the answer */
  cidr: string;
  gateway: string | null;
}

export interface AllocationPlan {
  /** null when every candidate was passed over */
  decision: AllocationDecision | null;
  /** the pools passed over so far, in order, with why */
  passedOver: PassedOver[];
}

/** Whether a pool of this CIDR could hold the requested address: the cheap test before its state is loaded. */
export function poolMayHold(cidr: string, request: Pick<AllocationPlanRequest, 'family' | 'ip'>): boolean {
  return request.ip === undefined || cidrContains(parseCidr(cidr), { family: request.family, value: request.ip });
}

/**
 * Plans one address of one family: the candidates are tried in order and the first that can decide
 * an address wins; a full, disabled or deleted pool is passed over with its reason. Pools are
 * decided one batch at a time, so a caller may walk the candidates in slices, passing on the
 * `passedOver` of the previous slice. Pure: the states are only read.
 */
export function planAllocation(
  candidates: Iterable<LoadedPool>,
  request: AllocationPlanRequest,
  passedOver: readonly PassedOver[] = [],
): AllocationPlan {
  const passed = [...passedOver];
  for (const { name, state } of candidates) {
    if (state.exists && state.cidr && (state.cidr.family !== request.family || !poolMayHold(formatCidr(state.cidr), request))) continue;
    try {
      const { ip, event, claim } = decideAllocate(state, request);
      const events = [...(claim ? [claim] : []), ...(event ? [event] : [])];
      return {
        decision: { pool: name, ip, event, claim, events, cidr: formatCidr(state.cidr!), gateway: poolGateway(state) },
        passedOver: passed,
      };
    } catch (err) {
      const reason = err instanceof DomainError && !request.pinned ? PASS_OVER[err.code] : undefined;
      if (!reason) throw err;
      const cooling = reason === 'full' ? coolingNote(state) : null;
      const why = state.blocks && reason === 'full' ? (err as DomainError).message : null;
      passed.push({ pool: name, reason, ...(cooling ? { cooling } : {}), ...(why ? { why } : {}) });
    }
  }
  return { decision: null, passedOver: passed };
}

/** Why no eligible pool (there was at least one) gave an address of this family. */
export function allocationRefusal(
  request: Pick<AllocationPlanRequest, 'family' | 'ip' | 'node'>,
  passedOver: readonly PassedOver[],
): DomainError {
  if (request.ip !== undefined && passedOver.length === 0) {
    const ip = formatIp({ family: request.family, value: request.ip });
    return new DomainError('IP_NOT_IN_POOL', `${ip} is not inside any pool eligible for node "${request.node}"`);
  }
  const pools = passedOver
    .map(({ pool, reason, cooling, why }) => `${pool} (${reason}${why ? `: ${why}` : ''}${cooling ? `: ${cooling}` : ''})`)
    .join(', ');
  return new DomainError('POOL_EXHAUSTED', `no free IPv${request.family} address in the eligible pools: ${pools}`);
}

/**
 * Where a StatefulSet pod's address is reserved: its ordinal's address in its StatefulSet's range,
 * when the range is of this family and covers the ordinal. Null otherwise (the pod then gets an
 * address like any other).
 */
export function ordinalAddress(reservation: Reservation, ref: StatefulSetRef, family: 4 | 6): { pool: string; ip: bigint } | null {
  if (!reservation.range || !reservation.pool) return null;
  const start = parseIp(reservation.range.start);
  if (start.family !== family) return null;
  const ip = addressForOrdinal({ start: start.value, end: parseIp(reservation.range.end).value }, reservation.ordinalsStart, ref.ordinal);
  return ip === null ? null : { pool: reservation.pool, ip };
}
