import { clusterOf, handleKey } from '../cluster/cluster-scope';
import { decidePlaced, type AllocateDecision, type AllocationRequest } from './decide-allocate';
import { existing } from './existing-pool';
import type { PoolView } from './pool-state';

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
