import type { KubeObject } from '../kube-object';
import { pick, trimmed } from './object-meta.transform';

/** The IPPool spec fields the API applies (the CRD's schema); its status is the API's own output and does not travel back. */
export const IPPOOL_SPEC_FIELDS = [
  'cidr',
  'gateway',
  'nodeSelector',
  'clusterSelector',
  'reserved',
  'disabled',
  'reuseDelaySeconds',
  'blockSize',
  'blockAffinity',
  'blockReleaseSeconds',
  'allowSpecialRanges',
  'network',
] as const;

export function trimIpPool(object: KubeObject): KubeObject {
  return trimmed(object, pick(object.spec, IPPOOL_SPEC_FIELDS));
}
