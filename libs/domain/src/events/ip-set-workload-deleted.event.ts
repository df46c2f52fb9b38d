/**
 * The Deployment or bare ReplicaSet of this uid is deleted (its set, if any, released with it):
 * the workload's tombstone. A pod that allocates after this reserves no set for it, since no later
 * release would come; a new workload of the name (another uid) reserves afresh.
 */
export interface IpSetWorkloadDeleted {
  type: 'IpSetWorkloadDeleted';
  data: { namespace: string; kind: 'Deployment' | 'ReplicaSet'; name: string; cluster?: string; uid: string };
}
