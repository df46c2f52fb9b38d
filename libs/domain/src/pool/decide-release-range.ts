import { inCluster } from '../cluster/cluster-scope';
import type { RangeReleased } from '../events';
import type { PoolView } from './pool-state';
import { rangeOwner } from './range-owner';

export function decideReleaseRange(state: PoolView, cluster: string, namespace: string, name: string): RangeReleased | null {
  return state.ranges.has(rangeOwner(cluster, namespace, name))
    ? { type: 'RangeReleased', data: { pool: state.name, namespace, name, ...inCluster(cluster) } }
    : null;
}
