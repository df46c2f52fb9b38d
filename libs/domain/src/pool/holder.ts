import { allocationOwner } from '../allocation/allocation-owner';
import { inCluster } from '../cluster/cluster-scope';
import type { Holder } from './pool-state';

/**
 * Exactly the holder's fields of a request or an event, the optional ones only when present; the
 * owner always, also for events recorded before owners were (allocationOwner).
 */
export function holderOf({
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
