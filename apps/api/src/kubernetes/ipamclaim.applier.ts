import { DeleteClaimCommand, ipamClaimName, PutClaimCommand } from '@ipledger/domain';
import type { ObjectChange } from '@ipledger/messaging';
import { deleteOnce, type ApplyContext } from './apply-context';

/**
 * An IPAMClaim (k8s.cni.cncf.io/v1alpha1, made by KubeVirt for a VM's secondary network) is the
 * persistent claim `ipamclaim:<cluster>:<namespace>:<name>` on its `spec.network`: the pod whose
 * network selection element references it allocates for it, and deleting it releases the address.
 */
export async function applyIpamClaim({ commands, metadata, unit, cluster }: ApplyContext, { type, object }: ObjectChange): Promise<string> {
  const claim = ipamClaimName(cluster, object.metadata.namespace as string, object.metadata.name);
  if (type === 'DELETED') return deleteOnce(commands.execute(new DeleteClaimCommand(claim, metadata, unit)), 'CLAIM_NOT_FOUND');
  const network = typeof object.spec?.network === 'string' ? object.spec.network : undefined;
  await commands.execute(new PutClaimCommand(claim, { cluster, ...(network ? { network } : {}) }, metadata, unit));
  return 'claim kept';
}
