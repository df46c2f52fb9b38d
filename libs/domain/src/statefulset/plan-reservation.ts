import { formatIp, parseIp } from '@ipledger/ip';
import type { LoadedPool } from '../allocation/plan-allocation';
import type { RangeReleased, RangeReserved } from '../events';
import { inCluster } from '../cluster/cluster-scope';
import { largestFreeRun } from '../pool/free-range-finder';
import { decideReleaseRange } from '../pool/decide-release-range';
import { decideReserveRange } from '../pool/decide-reserve-range';
import { decideResizeRange } from '../pool/decide-resize-range';
import { rangeOwner } from '../pool/range-owner';
import type { Reservation } from './statefulset.aggregate';
import type { ValidStatefulSetSpec } from './statefulset-spec';

export type ReservationRequest = Pick<ValidStatefulSetSpec, 'cluster' | 'namespace' | 'name' | 'replicas' | 'ordinalsStart'>;

/** A pool passed over for lack of a continuous run of `replicas` free addresses, with its longest one. */
export interface RangePassedOver {
  pool: string;
  largestRun: { start: string; length: bigint } | null;
}

export interface ReservationPlan {
  /** what the StatefulSet records; null while no candidate decided (walk on, then see reservationRefusal) */
  outcome: Reservation | null;
  /** the pool's range change, when there is one */
  event: RangeReserved | RangeReleased | null;
  passedOver: RangePassedOver[];
  /** a concurrent reconcile of the same StatefulSet changed the pool first: reload it and plan again */
  raced: boolean;
}

const NO_REPLICAS = 'replicas is 0: no range is held';

export function reservationOutcome(
  desired: ReservationRequest,
  pool: string | null,
  range: Reservation['range'],
  reason: string | null,
): Reservation {
  const { cluster, namespace, name, replicas, ordinalsStart } = desired;
  return { namespace, name, ...inCluster(cluster), replicas, ordinalsStart, pool, mode: range ? 'continuous' : 'dynamic', range, reason };
}

/**
 * Plans a new StatefulSet range: the first candidate with `replicas` continuous free addresses
 * (found by free-range-finder.ts) wins; the others are passed over with their longest free run.
 * With no replicas there is nothing to reserve. Pure: the states are only read, so a caller may
 * walk the candidates in slices, passing on the previous slice's `passedOver`.
 */
export function planReservation(
  candidates: Iterable<LoadedPool>,
  desired: ReservationRequest,
  passedOver: readonly RangePassedOver[] = [],
): ReservationPlan {
  const passed = [...passedOver];
  const undecided = { outcome: null, event: null, passedOver: passed, raced: false };
  if (desired.replicas === 0) return { ...undecided, outcome: reservationOutcome(desired, null, null, NO_REPLICAS) };
  for (const { name, state } of candidates) {
    if (!state.exists || !state.cidr) continue;
    if (state.ranges.has(rangeOwner(desired.cluster, desired.namespace, desired.name))) return { ...undecided, raced: true };
    const reserved = decideReserveRange(state, desired.cluster, desired.namespace, desired.name, BigInt(desired.replicas));
    if (reserved) {
      const range = { start: reserved.data.start, end: reserved.data.end };
      return { outcome: reservationOutcome(desired, name, range, null), event: reserved, passedOver: passed, raced: false };
    }
    const run = largestFreeRun(state);
    passed.push({
      pool: name,
      largestRun: run && { start: formatIp({ family: state.cidr.family, value: run.start }), length: run.length },
    });
  }
  return undecided;
}

/**
 * The dynamic outcome when no candidate had room: why (no eligible pool at all, with the selection's
 * own message, or the largest free run among the eligible ones).
 */
export function reservationRefusal(
  desired: ReservationRequest,
  passedOver: readonly RangePassedOver[],
  noEligiblePool: string | null,
): Reservation {
  let largest: RangePassedOver | null = null;
  for (const pool of passedOver) {
    if (pool.largestRun && (!largest?.largestRun || pool.largestRun.length > largest.largestRun.length)) largest = pool;
  }
  const reason =
    noEligiblePool ??
    `no eligible pool has ${desired.replicas} continuous free addresses; ` +
      (largest?.largestRun
        ? `the largest free run is ${largest.largestRun.length} addresses from ${largest.largestRun.start} in pool "${largest.pool}"`
        : 'they have no free address');
  return reservationOutcome(desired, null, null, reason);
}

/**
 * Plans the resize of a StatefulSet's range in place (see decideResizeRange), or its release at
 * zero replicas. Ordinals past a range that cannot grow get addresses on the fly, and the outcome
 * says which.
 */
export function planResize({ name, state }: LoadedPool, desired: ReservationRequest): ReservationPlan {
  const { cluster, namespace, replicas, ordinalsStart } = desired;
  const held = state.ranges.get(rangeOwner(cluster, namespace, desired.name));
  // a concurrent DELETE released it after the StatefulSet was read
  if (!held || !state.cidr) return { outcome: null, event: null, passedOver: [], raced: true };
  if (replicas === 0) {
    return {
      outcome: reservationOutcome(desired, null, null, NO_REPLICAS),
      event: decideReleaseRange(state, cluster, namespace, desired.name),
      passedOver: [],
      raced: false,
    };
  }
  const resized = decideResizeRange(state, cluster, namespace, desired.name, BigInt(replicas));
  const end = resized ? parseIp(resized.data.end).value : held.end;
  const family = state.cidr.family;
  const range = { start: formatIp({ family, value: held.start }), end: formatIp({ family, value: end }) };
  const size = Number(end - held.start) + 1;
  const reason =
    size < replicas
      ? `ordinals ${ordinalsStart + size} to ${ordinalsStart + replicas - 1} get addresses on the fly: the addresses after ${range.end} are taken`
      : null;
  return { outcome: reservationOutcome(desired, name, range, reason), event: resized, passedOver: [], raced: false };
}
