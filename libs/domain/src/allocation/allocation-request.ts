import type { IpAddress } from '@ipledger/ip';
import type { AllocateIpInput } from '../commands/allocate-ip.command';
import { ALLOCATION_OWNERS, allocationOwner, type AllocationOwner } from './allocation-owner';
import { InvalidInputError } from '../errors/domain-error';
import { ipArgument } from '../ip-input';
import { validateNetwork } from '../network-name';
import { validateDns1123Label, validateDns1123Subdomain } from '../labels';
import { DEFAULT_CLUSTER, validateClusterName } from '../cluster/cluster-name';
import { inCluster } from '../cluster/cluster-scope';

export interface AllocationRequestSpec {
  handle: string;
  /** the cluster of the handle and the node; absent: the default cluster (inCluster) */
  cluster?: string;
  node: string;
  namespace: string;
  pod: string;
  podUid: string | null;
  /** the CNI network name, recorded so CNI GC finds the attachments made through it */
  network?: string;
  owner: AllocationOwner;
  /** the exact addresses asked for, at most one a family, ascending by family; empty: any */
  ips: IpAddress[];
  /** ascending, distinct: one address per family, all or none (with `ips`, their families) */
  families: (4 | 6)[];
}

export const MAX_HANDLE_LENGTH = 255;

export function validateHandle(handle: string): string {
  if (handle.length === 0 || handle.length > MAX_HANDLE_LENGTH) {
    throw new InvalidInputError('INVALID_ARGUMENT', `handle must be 1 to ${MAX_HANDLE_LENGTH} characters (got ${handle.length})`);
  }
  return handle;
}

function families(requested: number[] | undefined, ips: IpAddress[], ipTexts: string[]): (4 | 6)[] {
  const asked = ips.map((ip) => ip.family);
  if (requested === undefined) return asked.length > 0 ? asked : [4];
  const distinct = [...new Set(requested)].sort();
  if (distinct.length === 0 || distinct.some((f) => f !== 4 && f !== 6) || distinct.length !== requested.length) {
    throw new InvalidInputError('INVALID_ARGUMENT', `families must be [4], [6] or [4,6] (got ${JSON.stringify(requested)})`);
  }
  if (ips.length > 0 && distinct.join() !== asked.join()) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `ip ${ipTexts.join(', ')} asks for ${asked.map((f) => `one IPv${f} address`).join(' and ')}; families ${JSON.stringify(requested)} does not fit`,
    );
  }
  return distinct as (4 | 6)[];
}

/** The exact addresses asked for (`ip`, or `ips`: one a family, all or none), ascending by family. */
function exactAddresses(input: AllocateIpInput): { ips: IpAddress[]; texts: string[] } {
  if (input.ip !== undefined && input.ips !== undefined) throw new InvalidInputError('INVALID_ARGUMENT', 'give ip or ips, not both');
  const texts = input.ips ?? (input.ip === undefined ? [] : [input.ip]);
  const ips = texts.map(ipArgument);
  const twice = ips.find((ip, i) => ips.findIndex((other) => other.family === ip.family) !== i);
  if (twice) {
    const same = texts.filter((_, i) => ips[i].family === twice.family);
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `asks for ${same.join(' and ')}, ${same.length} IPv${twice.family} addresses: an attachment has at most one address a family`,
    );
  }
  const order = ips.map((ip, i) => ({ ip, text: texts[i] })).sort((a, b) => a.ip.family - b.ip.family);
  return { ips: order.map((o) => o.ip), texts: order.map((o) => o.text) };
}

function owner(input: AllocateIpInput): AllocationOwner {
  if (input.owner === undefined) return allocationOwner({ podUid: input.podUid ?? null });
  if (!ALLOCATION_OWNERS.includes(input.owner as AllocationOwner)) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `owner must be one of ${ALLOCATION_OWNERS.join(', ')} (got ${JSON.stringify(input.owner)})`,
    );
  }
  return input.owner as AllocationOwner;
}

export function parseAllocationRequest(input: AllocateIpInput): AllocationRequestSpec {
  validateHandle(input.handle);
  validateDns1123Subdomain(input.node, 'node name');
  validateDns1123Label(input.namespace, 'namespace');
  validateDns1123Subdomain(input.pod, 'pod name');
  const { ips, texts } = exactAddresses(input);
  return {
    handle: input.handle,
    ...inCluster(validateClusterName(input.cluster ?? DEFAULT_CLUSTER)),
    node: input.node,
    namespace: input.namespace,
    pod: input.pod,
    podUid: input.podUid ?? null,
    ...(input.network === undefined ? {} : { network: validateNetwork(input.network) }),
    owner: owner(input),
    ips,
    families: families(input.families, ips, texts),
  };
}
