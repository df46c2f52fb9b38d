import { setTimeout as sleep } from 'node:timers/promises';
import { KubeApiError, type KubeClient } from '@ipledger/kube';
import { KUBE_RESOURCE_PATHS, type KubeKind } from '@ipledger/messaging';

/**
 * Waits until the API server serves the kind: a kind of a CustomResourceDefinition (KubeVirt's,
 * IPAMClaim's) answers 404 on a cluster without it, and a reflector started there would only log
 * errors. Probed with a one-item list every `probeSeconds`, so a CRD installed later is followed
 * from then on; any answer other than 404 counts as served (the reflector retries the rest).
 * Resolves false when stopped first.
 */
export async function waitUntilServed(
  client: KubeClient,
  kind: KubeKind,
  probeSeconds: number,
  signal: AbortSignal,
  onAbsent: () => void,
): Promise<boolean> {
  while (!signal.aborted) {
    const absent = await client.list(KUBE_RESOURCE_PATHS[kind], { limit: 1, signal }).then(
      () => false,
      (error: unknown) => error instanceof KubeApiError && error.statusCode === 404,
    );
    if (signal.aborted) return false;
    if (!absent) return true;
    onAbsent();
    await sleep(probeSeconds * 1000, undefined, { signal }).catch(() => undefined);
  }
  return false;
}
