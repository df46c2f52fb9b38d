import type { ApiClient } from './api-client';
import { handleOf, parseCniArgs } from './cni-environment';

/**
 * Releases whatever a handle holds; nothing held is success (DEL is idempotent). With the pod's
 * uid, the addresses adopted for that pod (it ran before ipledger was its IPAM) go too.
 */
export async function releaseHandle(api: ApiClient, handle: string, podUid?: string): Promise<void> {
  const path = `${api.allocations}/${encodeURIComponent(handle)}${podUid ? `?podUid=${encodeURIComponent(podUid)}` : ''}`;
  const answer = await api.request('DELETE', path);
  if (answer.status !== 204 && answer.status !== 404) throw api.refusal('DELETE', path, answer);
}

/** DEL: the attachment's addresses go back to their pools, and the pod's adopted ones (CNI_ARGS K8S_POD_UID). */
export async function cniDel(env: NodeJS.ProcessEnv, api: ApiClient): Promise<void> {
  await releaseHandle(api, handleOf(env), podUidOf(env));
}

/** A DEL must not fail on CNI_ARGS it does not need: malformed ones release the handle alone. */
function podUidOf(env: NodeJS.ProcessEnv): string | undefined {
  try {
    return parseCniArgs(env.CNI_ARGS).get('K8S_POD_UID') || undefined;
  } catch {
    return undefined;
  }
}
