import type { KubeObject, KubeObjectMeta } from '../kube-object';

/** The annotations ipledger reads; every other annotation (last-applied-configuration...) stays behind. */
export const IPAM_ANNOTATION_PREFIX = 'ipam.ipledger.io/';

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Only the keys named, and only those present: an absent field stays absent, a malformed one is left for the reader to refuse. */
export function pick<T extends Record<string, unknown>>(source: unknown, keys: readonly string[]): T | undefined {
  if (!isRecord(source)) return undefined;
  const picked: Record<string, unknown> = {};
  for (const key of keys) if (source[key] !== undefined) picked[key] = source[key];
  return picked as T;
}

export function ipamAnnotations(annotations: unknown): Record<string, string> | undefined {
  if (!isRecord(annotations)) return undefined;
  const kept = Object.entries(annotations).filter(([key]) => key.startsWith(IPAM_ANNOTATION_PREFIX));
  return kept.length ? (Object.fromEntries(kept) as Record<string, string>) : undefined;
}

const META_KEYS = ['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'labels'];
const OWNER_KEYS = ['apiVersion', 'kind', 'name', 'uid', 'controller'];

/** What every kind keeps of `metadata`: identity, version, labels, ipledger's annotations and owners (no managedFields). */
export function trimMeta(metadata: KubeObjectMeta): KubeObjectMeta {
  const kept = pick<Record<string, unknown>>(metadata, META_KEYS) ?? {};
  const annotations = ipamAnnotations(metadata.annotations);
  if (annotations) kept.annotations = annotations;
  if (Array.isArray(metadata.ownerReferences))
    kept.ownerReferences = metadata.ownerReferences.map((owner) => pick(owner, OWNER_KEYS) ?? {});
  return kept as unknown as KubeObjectMeta;
}

/** The object's type and trimmed metadata, with the kind's own `spec` and `status` parts when it keeps any. */
export function trimmed(object: KubeObject, spec?: Record<string, unknown>, status?: Record<string, unknown>): KubeObject {
  const result: KubeObject = { metadata: trimMeta(object.metadata) };
  if (object.apiVersion !== undefined) result.apiVersion = object.apiVersion;
  if (object.kind !== undefined) result.kind = object.kind;
  if (spec && Object.keys(spec).length) result.spec = spec;
  if (status && Object.keys(status).length) result.status = status;
  return result;
}
