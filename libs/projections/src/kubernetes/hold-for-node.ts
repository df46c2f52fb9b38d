import type { HeldForNode } from '../allocation-queries';
import type { Queryable } from '../queryable';

/** A deleted pod's addresses, held for its node (its sandbox may still use them): the first hold of a handle stays. */
export async function holdForNode(
  db: Queryable,
  handles: string[],
  pod: { namespace: string; name: string; uid: string; node: string },
  cause: HeldForNode['cause'],
  cluster: string,
): Promise<void> {
  await db.query(
    `INSERT INTO kubernetes_held_addresses (handle, node, namespace, pod, pod_uid, cause, cluster)
     SELECT h, $2, $3, $4, $5, $6, $7 FROM unnest($1::text[]) AS h ON CONFLICT (handle) DO NOTHING`,
    [handles, pod.node, pod.namespace, pod.name, pod.uid, cause, cluster],
  );
}
