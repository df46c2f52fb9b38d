import { DeleteClaimCommand, kubevirtClaimName, PutClaimCommand } from '@ipledger/domain';
import type { ObjectChange } from '@ipledger/messaging';
import { deleteOnce, type ApplyContext } from './apply-context';

/**
 * A KubeVirt VirtualMachine is a persistent claim (`kubevirt:<cluster>:<namespace>:<name>`): its
 * address stays while the VM is stopped, restarted or migrated (its launcher pods come and go as
 * references) and is released when the VM is deleted. Its network is set by its first allocation.
 */
export async function applyVirtualMachine(
  { commands, metadata, unit, cluster }: ApplyContext,
  { type, object }: ObjectChange,
): Promise<string> {
  const claim = kubevirtClaimName(cluster, object.metadata.namespace as string, object.metadata.name);
  if (type === 'DELETED') return deleteOnce(commands.execute(new DeleteClaimCommand(claim, metadata, unit)), 'CLAIM_NOT_FOUND');
  await commands.execute(new PutClaimCommand(claim, { cluster }, metadata, unit));
  return 'claim kept';
}

/**
 * A VirtualMachineInstance of a VirtualMachine is covered by the VM's claim (same name): stopping
 * the VM deletes the instance, never the address. A bare instance (made without a VM) is a claim
 * of its own, released when it is deleted.
 */
export function applyVirtualMachineInstance(ctx: ApplyContext, change: ObjectChange): Promise<string> {
  const ofVm = change.object.metadata.ownerReferences?.some((owner) => owner.controller && owner.kind === 'VirtualMachine');
  return ofVm ? Promise.resolve('seen') : applyVirtualMachine(ctx, change);
}
