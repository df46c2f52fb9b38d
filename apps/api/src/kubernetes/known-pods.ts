import { clusterOf, DomainError, parseIpSetAnnotation, parsePoolAnnotations, podIpSetRef, type IpSetRef } from '@ipledger/domain';
import {
  canonicalPool,
  clusterKey,
  findPoolsByName,
  liveObjectUid,
  readStoredPod,
  type ByNameReads,
  type Queryable,
  type StoredPodRow,
} from '@ipledger/projections';
import type { PodRef, StoredPod } from '../allocations/pod-lookup';

/** How often an allocation waiting for its pod looks again: short against IPAM_POD_WAIT_MS, long against a query. */
const POLL_MS = 50;

/** The stored annotations, and what a node's eligibility check reads (eligiblePoolPages). */
export interface StoredSelection {
  stored: StoredPod;
  reads: ByNameReads;
}

/**
 * The annotations as readStored reads them, and, in the same statement, what the node's
 * eligibility check needs when they name pools (its node, those pools): a selection chosen by a
 * `pools` annotation costs the one round trip a matchLabel selection costs. Names the statement
 * did not read (the request's own, a `networks` entry's) are read on their own.
 */
export async function storedSelection(
  db: Queryable,
  cluster: string,
  namespace: string,
  pod: { name: string; uid: string | null } | null,
  node: string,
): Promise<StoredSelection> {
  const { stored, row } = await readStored(db, cluster, namespace, pod, node);
  const byName = new Map(row.pools.map((pool) => [pool.name, canonicalPool(pool)]));
  return {
    stored,
    reads: {
      node: () => Promise.resolve(row.node),
      pools: (names) =>
        names.every((name) => row.named.includes(name))
          ? Promise.resolve(names.flatMap((name) => byName.get(name) ?? []))
          : findPoolsByName(db, names),
    },
  };
}

/**
 * The pool annotations of a namespace and of one of its pods (none asked: `pod` null) as the
 * Kubernetes consumer last applied them (kubernetes_objects, of the cluster's watcher), one query for both, with the pod's
 * creation time (read here, where the pod's row is read anyway, so the allocation's own reads
 * need not) and its ip-set. A namespace not seen is one without annotations.
 */
async function readStored(
  db: Queryable,
  cluster: string,
  namespace: string,
  pod: { name: string; uid: string | null } | null,
  node: string | null,
): Promise<{ stored: StoredPod; row: StoredPodRow }> {
  // the consumer's rows and the nodes read model both key another cluster's by `<cluster>/<key>`
  const row = await readStoredPod(
    db,
    pod ? clusterKey(cluster, `${namespace}/${pod.name}`) : null,
    clusterKey(cluster, namespace),
    node === null ? null : clusterKey(cluster, node),
  );
  const podRow = pod && row.objects.find((o) => o.kind === 'pod' && !o.deleted && (pod.uid === null || o.uid === pod.uid));
  const namespaceRow = row.objects.find((o) => o.kind === 'namespace' && !o.deleted);
  const podMeta = podRow ? (podRow.meta ?? {}) : null;
  const what = `pod ${namespace}/${pod?.name}`;
  const wanted = podMeta && parseIpSetAnnotation(podMeta.annotations, what);
  const ref = wanted && podIpSetRef({ namespace, labels: podMeta.labels, ownerReferences: podMeta.ownerReferences });
  const stored: StoredPod = {
    podKnown: Boolean(podRow),
    annotated: {
      pod: podMeta ? parsePoolAnnotations(podMeta.annotations, what) : null,
      namespace: namespaceRow ? parsePoolAnnotations(namespaceRow.meta?.annotations, `namespace ${namespace}`) : null,
    },
    createdAt: podMeta?.creationTimestamp ?? null,
    node: podRow ? podRow.node : null,
    ipSet: wanted && ref ? { ref, wanted } : null,
    claiming: podMeta && { namespace, labels: podMeta.labels, ownerReferences: podMeta.ownerReferences, annotations: podMeta.annotations },
  };
  return { stored, row };
}

/**
 * A CNI ADD may come before the watcher's message of its pod: the allocation waits for the pod up
 * to `waitMs`, then is refused with POD_NOT_SEEN (503, CNI code 11: kubelet tries again) rather
 * than take an address from a pool the pod's annotations may forbid. `bound` (a node's credential,
 * which may act only for its node's pods): a pod known but not yet bound to a node is waited for
 * too, as its binding may come just after it.
 */
export async function awaitPodAnnotations(db: Queryable, ref: PodRef, waitMs: number, bound = false): Promise<StoredPod> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const { stored } = await readStored(db, clusterOf(ref), ref.namespace, { name: ref.pod, uid: ref.podUid }, null);
    if (stored.podKnown && (!bound || stored.node !== null)) return stored;
    const left = deadline - Date.now();
    if (left <= 0) {
      const uid = ref.podUid === null ? '' : ` (uid ${ref.podUid})`;
      throw new DomainError(
        'POD_NOT_SEEN',
        `pod ${ref.namespace}/${ref.pod}${uid} has not come from the Kubernetes watcher${bound ? ' bound to a node' : ''} within ${waitMs} ms (IPAM_POD_WAIT_MS); retry later`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, left)));
  }
}

/** The uid of the Deployment or ReplicaSet of this name the consumer last applied as live; null when it knows none. */
export function liveWorkloadUid(db: Queryable, ref: IpSetRef): Promise<string | null> {
  return liveObjectUid(db, ref.kind.toLowerCase(), `${ref.namespace}/${ref.name}`);
}
