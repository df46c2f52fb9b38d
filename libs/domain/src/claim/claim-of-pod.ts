/** The Multus annotation listing a pod's network selection elements (k8snetworkplumbingwg's spec). */
export const NETWORKS_ANNOTATION = 'k8s.v1.cni.cncf.io/networks';

/** One network selection element, as much of it as a claim needs. */
export interface NetworkSelectionElement {
  name: string;
  namespace?: string;
  interface?: string;
  'ipam-claim-reference'?: string;
}

/** What is known of the pod an attachment is made for. */
export interface ClaimingPod {
  cluster: string;
  namespace: string;
  labels?: Record<string, string>;
  /** as stored: a field may be missing */
  ownerReferences?: Array<{ kind?: string; name?: string; controller?: boolean }>;
  annotations?: Record<string, unknown>;
}

/** The attachment being made: the CNI network name and the pod's interface (CNI_IFNAME). */
export interface Attachment {
  network: string | null;
  interfaceName: string | null;
}

/** The interface of a CNI handle (`<CNI_CONTAINERID>:<CNI_IFNAME>`); null for a handle of another shape. */
export const interfaceOfHandle = (handle: string): string | null => {
  const colon = handle.lastIndexOf(':');
  return colon > 0 && colon < handle.length - 1 ? handle.slice(colon + 1) : null;
};

/** Kubernetes names the pod's first interface eth0; Multus names the others after their element or net1, net2... */
const PRIMARY_INTERFACE = 'eth0';

/**
 * The claim an attachment allocates for, from what Kubernetes says of the pod; null: none (an
 * ordinary pod's address, freed with it).
 * - A network selection element of this attachment (matched on its `interface`, else its name)
 *   with `ipam-claim-reference` → the IPAMClaim's persistent claim, as KubeVirt's persistent IPs
 *   for secondary networks ask.
 * - A KubeVirt virt-launcher pod's primary interface → its VirtualMachineInstance's claim (whose
 *   name is its VirtualMachine's), so a restarted or migrated VM keeps its address.
 */
export function claimOfPod(pod: ClaimingPod, attachment: Attachment): string | null {
  const element = selectionElements(pod.annotations).find((e) =>
    e.interface !== undefined ? e.interface === attachment.interfaceName : e.name === attachment.network,
  );
  const reference = element?.['ipam-claim-reference'];
  // the IPAMClaim lives in the pod's namespace (the element's `namespace` is its NetworkAttachmentDefinition's)
  if (reference) return ipamClaimName(pod.cluster, pod.namespace, reference);
  const vmi = pod.ownerReferences?.find((o) => o.controller && o.kind === 'VirtualMachineInstance');
  if (pod.labels?.['kubevirt.io'] === 'virt-launcher' && vmi?.name && attachment.interfaceName === PRIMARY_INTERFACE)
    return kubevirtClaimName(pod.cluster, pod.namespace, vmi.name);
  return null;
}

/** The elements of the annotation when it is the JSON form; its short form (`a,b@net2`) names no claims. */
export function selectionElements(annotations: Record<string, unknown> | undefined): NetworkSelectionElement[] {
  const value = annotations?.[NETWORKS_ANNOTATION];
  const text = typeof value === 'string' ? value.trim() : '';
  if (!text.startsWith('[')) return [];
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.filter(isElement) : [];
  } catch {
    return [];
  }
}

const isElement = (value: unknown): value is NetworkSelectionElement =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as NetworkSelectionElement).name === 'string' &&
  ['namespace', 'interface', 'ipam-claim-reference'].every((key) => {
    const field = (value as Record<string, unknown>)[key];
    return field === undefined || typeof field === 'string';
  });

/** The claim a VirtualMachine (or a VirtualMachineInstance without one) keeps its address under. */
export const kubevirtClaimName = (cluster: string, namespace: string, name: string) => `kubevirt:${cluster}:${namespace}:${name}`;

/** The claim an IPAMClaim object stands for. */
export const ipamClaimName = (cluster: string, namespace: string, name: string) => `ipamclaim:${cluster}:${namespace}:${name}`;
