import type { ApiClient } from './api-client';
import type { NetworkConfig } from './cni-config';
import { releaseHandle } from './cni-del';
import { CNI_CODES, CniError } from './cni-error';

const PAGE = 1000;

/** The handles this node holds through this network, every page of them. */
async function heldHandles(config: NetworkConfig, api: ApiClient): Promise<Set<string>> {
  const handles = new Set<string>();
  let token: string | null = null;
  do {
    const query = new URLSearchParams({ node: config.ipam.node, network: config.name, limit: String(PAGE) });
    if (token) query.set('continue', token);
    const path = `${api.allocations}?${query.toString()}`;
    const answer = await api.request('GET', path);
    if (answer.status !== 200) throw api.refusal('GET', path, answer);
    const page = answer.body as { items: Array<{ handle: string }>; continue: string | null };
    for (const { handle } of page.items) handles.add(handle);
    token = page.continue;
  } while (token);
  return handles;
}

/**
 * GC (1.1.0): releases this node's handles made through this network that the runtime's
 * `cni.dev/valid-attachments` does not list. Returns the handles it released.
 */
export async function cniGc(config: NetworkConfig, api: ApiClient): Promise<string[]> {
  // without the list every attachment would look stale: refuse rather than release them all
  if (!config.validAttachments)
    throw new CniError(CNI_CODES.INVALID_CONFIG, 'GC needs cni.dev/valid-attachments (an empty list when none)');
  const valid = new Set(config.validAttachments.map((a) => `${a.containerID}:${a.ifname}`));
  // `@<name>` is a claim's holding (docs/api.md "Claims"), listed under its first reference's node: never an attachment of this node's
  const stale = [...(await heldHandles(config, api))].filter((handle) => !handle.startsWith('@') && !valid.has(handle));
  for (const handle of stale) await releaseHandle(api, handle);
  return stale;
}
