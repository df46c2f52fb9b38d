import type { KubeObject } from '../kube-object';
import { pick, trimmed } from './object-meta.transform';

/**
 * An IPAMClaim (k8s.cni.cncf.io/v1alpha1): the network and interface its addresses are for. Its
 * status (the addresses) is written by the IPAM, never read back from it.
 */
export function trimIpamClaim(object: KubeObject): KubeObject {
  return trimmed(object, pick(object.spec, ['network', 'interface']));
}
