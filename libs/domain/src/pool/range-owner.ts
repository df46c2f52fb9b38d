import { ipSetOfRange } from '../ip-set/ip-set';

/** A range in a pool (a StatefulSet's, or a Deployment's or ReplicaSet's ip-set) is keyed by `namespace/name`. */
export const rangeOwner = (namespace: string, name: string) => `${namespace}/${name}`;

/** Who a range is reserved for, in words, from its owner key (rangeOwner): an ip-set's workload, else a StatefulSet. */
export function describeRangeOwner(owner: string): string {
  const slash = owner.indexOf('/');
  const ipSet = ipSetOfRange(owner.slice(0, slash), owner.slice(slash + 1));
  return ipSet ? `the ip-set of ${ipSet.kind} ${ipSet.namespace}/${ipSet.name}` : `StatefulSet ${owner}`;
}
