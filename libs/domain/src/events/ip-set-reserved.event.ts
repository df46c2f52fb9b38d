/**
 * The workload's ip-set is reserved, as the `RangeReserved` of `pool` appended with it says. In the
 * workload's own stream (ipSetId; `cluster` absent for the default cluster), whose expected version makes the set
 * one across pools: a concurrent first pod's reservation in another pool loses the append.
 */
export interface IpSetReserved {
  type: 'IpSetReserved';
  data: { namespace: string; kind: 'Deployment' | 'ReplicaSet'; name: string; cluster?: string; pool: string; start: string; end: string };
}
