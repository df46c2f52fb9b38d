import { ReleaseIpSetCommand, type IpSetKind } from '@ipledger/domain';
import type { ObjectChange } from '@ipledger/messaging';
import type { ApplyContext } from './apply-context';

/**
 * A deleted Deployment or ReplicaSet releases its ip-set, if it has one: a Deployment's
 * ReplicaSets have none of their own (their pods use the Deployment's, see podIpSetRef), so a
 * rollout's old ReplicaSet releases nothing. A live one is only recorded: its pods carry the set's
 * annotation and name their workload.
 */
function workloadApplier(kind: IpSetKind) {
  return async ({ commands, metadata }: ApplyContext, { type, object }: ObjectChange): Promise<string> => {
    if (type !== 'DELETED') return 'seen';
    const ref = { namespace: object.metadata.namespace as string, kind, name: object.metadata.name };
    const released = await commands.execute<ReleaseIpSetCommand, boolean>(new ReleaseIpSetCommand(ref, metadata));
    return released ? 'ip-set released' : 'deleted';
  };
}

export const applyDeployment = workloadApplier('Deployment');
export const applyReplicaSet = workloadApplier('ReplicaSet');
