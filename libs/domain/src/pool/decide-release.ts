import { formatIp } from '@ipledger/ip';
import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import { handleKey, inCluster } from '../cluster/cluster-scope';
import type { IpReleased, ReleaseCondition } from '../events';
import { inNetwork } from './pool-network';
import type { PoolView } from './pool-state';

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
