import type { KubeObject } from '../kube-object';
import { trimmed } from './object-meta.transform';

/**
 * A KubeVirt VirtualMachine or VirtualMachineInstance: its identity and owners only. The API needs
 * to know that it exists (its claim keeps the VM's address while no launcher pod runs) and when it
 * is gone (the claim is released); its launcher pods name it through their ownerReferences.
 * Nothing of its spec (disks, cloud-init user data) or status.
 */
export function trimVirtualMachine(object: KubeObject): KubeObject {
  return trimmed(object);
}
