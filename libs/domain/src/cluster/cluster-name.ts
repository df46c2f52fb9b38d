import { validateDns1123Label } from '../labels';

/** The cluster of everything written before clusters existed, and of a caller that names none: it always exists. */
export const DEFAULT_CLUSTER = 'default';

/** A cluster name is a DNS-1123 label, as a kubeconfig context or a ClusterSet member name is. */
export function validateClusterName(name: string): string {
  validateDns1123Label(name, 'cluster name');
  return name;
}
