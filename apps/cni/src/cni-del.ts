import type { ApiClient } from './api-client';
import { handleOf } from './cni-environment';

/** Releases whatever a handle holds; nothing held is success (DEL is idempotent). */
export async function releaseHandle(api: ApiClient, handle: string): Promise<void> {
  const path = `/v1/allocations/${encodeURIComponent(handle)}`;
  const answer = await api.request('DELETE', path);
  if (answer.status !== 204 && answer.status !== 404) throw api.refusal('DELETE', path, answer);
}

/** DEL: the attachment's addresses go back to their pools. */
export async function cniDel(env: NodeJS.ProcessEnv, api: ApiClient): Promise<void> {
  await releaseHandle(api, handleOf(env));
}
