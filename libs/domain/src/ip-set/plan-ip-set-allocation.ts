import { parseIp } from '@ipledger/ip';
import {
  planAllocation,
  type AllocationPlan,
  type AllocationPlanRequest,
  type LoadedPool,
  type PassedOver,
} from '../allocation/plan-allocation';
import type { PoolView } from '../pool/pool-state';
import type { IpSetRef, IpSetWanted } from './ip-set';
import { decideReserveIpSet, holdsIpSet, ipSetMisfit, ipSetRangeOwner } from './reserve-ip-set';

/**
 * One pool's try for a pod of a workload with an ip-set. Where the pool holds the set, the pod
 * takes a free address of it, and a full set (IP_SET_FULL) is final: no other pool may serve the
 * workload. Where it does not yet (the workload's first pod), the set is reserved here when it
 * fits and the pod takes its first address, both in one append; a pool it does not fit is passed
 * over, with why. Pure: the state is only read.
 */
export function planIpSetAllocation(
  { name, state }: LoadedPool,
  request: AllocationPlanRequest & { ipSet: IpSetRef },
  wanted: IpSetWanted,
  passedOver: readonly PassedOver[] = [],
): AllocationPlan {
  const pinned = { ...request, pinned: true };
  if (holdsIpSet(state, request.ipSet)) return planAllocation([{ name, state }], pinned, passedOver);
  const reserved = decideReserveIpSet(state, request.ipSet, wanted);
  if (!reserved) {
    return { decision: null, passedOver: [...passedOver, { pool: name, reason: 'full', why: ipSetMisfit(state, wanted) }] };
  }
  // the pod decides on the pool as the reservation leaves it: the set's range added, nothing else changed
  const { start, end } = reserved.data;
  const withSet: PoolView = {
    ...state,
    ranges: new Map(state.ranges).set(ipSetRangeOwner(request.ipSet), { start: parseIp(start).value, end: parseIp(end).value }),
  };
  const plan = planAllocation([{ name, state: withSet }], pinned, passedOver);
  return plan.decision ? { ...plan, decision: { ...plan.decision, events: [reserved, ...plan.decision.events] } } : plan;
}
