import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import { namespaceKey } from '../cluster/cluster-scope';
import { ipSetOfRange } from '../ip-set/ip-set';

/**
 * A range in a pool (a StatefulSet's, or a Deployment's or ReplicaSet's ip-set) is keyed by
 * `namespace/name` in the default cluster and `cluster/namespace/name` in another (namespaceKey):
 * a workload name holds no `/` either, so no two clusters' keys collide.
 */
export const rangeOwner = (cluster: string, namespace: string, name: string) => `${namespaceKey(cluster, namespace)}/${name}`;

/** The cluster, namespace and name an owner key (rangeOwner) is made of. */
export function parseRangeOwner(owner: string): { cluster: string; namespace: string; name: string } {
  const parts = owner.split('/');
  const [cluster, namespace, name] = parts.length === 3 ? parts : [DEFAULT_CLUSTER, ...parts];
  return { cluster, namespace, name };
}

/** Who a range is reserved for, in words, from its owner key (rangeOwner): an ip-set's workload, else a StatefulSet. */
export function describeRangeOwner(owner: string): string {
  const { cluster, namespace, name } = parseRangeOwner(owner);
  const where = cluster === DEFAULT_CLUSTER ? '' : ` in cluster "${cluster}"`;
  const ipSet = ipSetOfRange(namespace, name);
  return (ipSet ? `the ip-set of ${ipSet.kind} ${ipSet.namespace}/${ipSet.name}` : `StatefulSet ${namespace}/${name}`) + where;
}
