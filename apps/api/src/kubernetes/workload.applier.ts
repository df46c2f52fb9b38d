import { inCluster, ReleaseIpSetCommand, type IpSetKind } from '@ipledger/domain';
import type { ObjectChange } from '@ipledger/messaging';
import type { ApplyContext } from './apply-context';

/**
 * A deleted Deployment or ReplicaSet releases its ip-set, if it has one, and leaves its tombstone,
 * so that a pod allocating after the deletion reserves no set that nothing would release. A
 * Deployment's ReplicaSets have no set of their own (their pods use the Deployment's, see
 * podIpSetRef), so a rollout's old ReplicaSet releases nothing and leaves no tombstone. A live one
 * is only recorded: its pods carry the set's annotation and name their workload.
 */
function workloadApplier(kind: IpSetKind) {
  return async ({ commands, metadata, unit, cluster }: ApplyContext, { type, object }: ObjectChange): Promise<string> => {
    if (type !== 'DELETED') return 'seen';
    const ref = { namespace: object.metadata.namespace as string, kind, name: object.metadata.name, ...inCluster(cluster) };
    const ofDeployment = kind === 'ReplicaSet' && object.metadata.ownerReferences?.some((o) => o.controller && o.kind === 'Deployment');
    const command = new ReleaseIpSetCommand(ref, object.metadata.uid, !ofDeployment, metadata, unit);
    const released = await commands.execute<ReleaseIpSetCommand, boolean>(command);
    return released ? 'ip-set released' : 'deleted';
  };
}

export const applyDeployment = workloadApplier('Deployment');
export const applyReplicaSet = workloadApplier('ReplicaSet');
