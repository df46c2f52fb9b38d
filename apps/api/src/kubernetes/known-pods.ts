import {
  DomainError,
  parseIpSetAnnotation,
  parsePoolAnnotations,
  podIpSetRef,
  type AnnotatedPod,
  type IpSetRef,
  type IpSetWanted,
} from '@ipledger/domain';
import type { Queryable } from '@ipledger/projections';

export interface PodRef {
  namespace: string;
  pod: string;
  /** when given, only the pod of this uid is the one asked about (a StatefulSet pod recreated keeps its name) */
  podUid: string | null;
}

/** How often an allocation waiting for its pod looks again: short against IPAM_POD_WAIT_MS, long against a query. */
const POLL_MS = 50;

/** The set a pod's template asks for (its ip-set annotation), and the workload it is for. */
export interface PodIpSet {
  ref: IpSetRef;
  wanted: IpSetWanted;
}

type StoredMeta = {
  annotations?: Record<string, unknown>;
  labels?: Record<string, string>;
  ownerReferences?: Array<{ kind?: string; name?: string; controller?: boolean }>;
  creationTimestamp?: string;
};

/** What the Kubernetes consumer last applied of a pod and its namespace that an allocation uses. */
export interface StoredPod {
  /** false while the pod asked about has not come */
  podKnown: boolean;
  annotated: AnnotatedPod;
  /** the pod's creationTimestamp (RFC 3339, the API server's clock), null when the pod is not known or has none */
  createdAt: string | null;
  /** null when the pod has no ip-set annotation, or no ReplicaSet owns it */
  ipSet: PodIpSet | null;
}

/**
 * The pool annotations of a namespace and of one of its pods (none asked: `pod` null) as the
 * Kubernetes consumer last applied them (kubernetes_objects), one query for both, with the pod's
 * creation time (read here, where the pod's row is read anyway, so the allocation's own reads
 * need not) and its ip-set. A namespace not seen is one without annotations.
 */
export async function storedAnnotations(
  db: Queryable,
  namespace: string,
  pod: { name: string; uid: string | null } | null,
): Promise<StoredPod> {
  const { rows } = await db.query<{ kind: 'pod' | 'namespace'; uid: string; deleted: boolean; meta: StoredMeta | null }>(
    `SELECT kind, uid, deleted, object -> 'metadata' AS meta FROM kubernetes_objects
      WHERE (kind = 'pod' AND key = $1) OR (kind = 'namespace' AND key = $2)`,
    [pod ? `${namespace}/${pod.name}` : null, namespace],
  );
  const podRow = pod && rows.find((row) => row.kind === 'pod' && !row.deleted && (pod.uid === null || row.uid === pod.uid));
  const namespaceRow = rows.find((row) => row.kind === 'namespace' && !row.deleted);
  const podMeta = podRow ? (podRow.meta ?? {}) : null;
  const what = `pod ${namespace}/${pod?.name}`;
  const wanted = podMeta && parseIpSetAnnotation(podMeta.annotations, what);
  const ref = wanted && podIpSetRef({ namespace, labels: podMeta.labels, ownerReferences: podMeta.ownerReferences });
  return {
    podKnown: Boolean(podRow),
    annotated: {
      pod: podMeta ? parsePoolAnnotations(podMeta.annotations, what) : null,
      namespace: namespaceRow ? parsePoolAnnotations(namespaceRow.meta?.annotations, `namespace ${namespace}`) : null,
    },
    createdAt: podMeta?.creationTimestamp ?? null,
    ipSet: wanted && ref ? { ref, wanted } : null,
  };
}

/**
 * A CNI ADD may come before the watcher's message of its pod: the allocation waits for the pod up
 * to `waitMs`, then is refused with POD_NOT_SEEN (503, CNI code 11: kubelet tries again) rather
 * than take an address from a pool the pod's annotations may forbid.
 */
export async function awaitPodAnnotations(db: Queryable, ref: PodRef, waitMs: number): Promise<StoredPod> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const stored = await storedAnnotations(db, ref.namespace, { name: ref.pod, uid: ref.podUid });
    if (stored.podKnown) return stored;
    const left = deadline - Date.now();
    if (left <= 0) {
      const uid = ref.podUid === null ? '' : ` (uid ${ref.podUid})`;
      throw new DomainError(
        'POD_NOT_SEEN',
        `pod ${ref.namespace}/${ref.pod}${uid} has not come from the Kubernetes watcher within ${waitMs} ms (IPAM_POD_WAIT_MS); retry later`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, left)));
  }
}
