export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
}

/** The metadata every kind keeps once trimmed (transforms/): managedFields and other annotations never travel. */
export interface KubeObjectMeta {
  name: string;
  namespace?: string;
  uid: string;
  resourceVersion: string;
  /** bumped by the API server at each change of spec; an IPPool's status names the one it reflects */
  generation?: number;
  ownerReferences?: OwnerReference[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  creationTimestamp?: string;
  deletionTimestamp?: string;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: KubeObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** `namespace/name` for namespaced objects, `name` for cluster-scoped ones, as client-go's cache keys them. */
export function objectKey(object: { metadata: { name: string; namespace?: string } }): string {
  const { name, namespace } = object.metadata;
  return namespace ? `${namespace}/${name}` : name;
}
