import { IpFormatError, canonicalIp } from '@ipledger/ip';
import type { ApiClient } from './api-client';
import type { NetworkConfig } from './cni-config';
import { handleOf } from './cni-environment';
import { CNI_CODES, CniError } from './cni-error';
import type { AllocatedAddress } from './cni-result';

/** The addresses a prevResult lists, as canonical "ip/prefix" text, sorted. */
export function prevResultAddresses(prevResult: unknown): string[] {
  const ips = (prevResult as { ips?: unknown } | undefined)?.ips;
  if (!Array.isArray(ips)) throw new CniError(CNI_CODES.INVALID_CONFIG, 'CHECK needs a prevResult with "ips"');
  return ips
    .map((entry: { address?: unknown }) => {
      const address = typeof entry?.address === 'string' ? entry.address : '';
      const [ip, prefix, extra] = address.split('/');
      try {
        if (prefix === undefined || extra !== undefined || !/^[0-9]{1,3}$/.test(prefix)) throw new IpFormatError('ip', address);
        return `${canonicalIp(ip)}/${Number(prefix)}`;
      } catch {
        throw new CniError(CNI_CODES.INVALID_CONFIG, `prevResult address ${JSON.stringify(entry?.address)} is not "<ip>/<prefix>"`);
      }
    })
    .sort();
}

/** CHECK: succeeds only when the handle holds exactly the addresses of prevResult. */
export async function cniCheck(config: NetworkConfig, env: NodeJS.ProcessEnv, api: ApiClient): Promise<void> {
  const handle = handleOf(env);
  const expected = prevResultAddresses(config.prevResult);
  const path = `${api.allocations}/${encodeURIComponent(handle)}`;
  const answer = await api.request('GET', path);
  if (answer.status !== 200 && answer.status !== 404) throw api.refusal('GET', path, answer);
  const held =
    answer.status === 404 ? [] : (answer.body as { items: AllocatedAddress[] }).items.map((a) => `${a.ip}/${a.prefixLength}`).sort();
  if (JSON.stringify(held) !== JSON.stringify(expected)) {
    throw new CniError(
      CNI_CODES.CHECK_MISMATCH,
      `handle ${handle} holds [${held.join(', ')}] but prevResult lists [${expected.join(', ')}]`,
    );
  }
}
