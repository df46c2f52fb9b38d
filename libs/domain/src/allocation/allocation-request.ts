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
  ip: IpAddress | null;
  /** ascending, distinct: one address per family, all or none */
  families: (4 | 6)[];
}

export const MAX_HANDLE_LENGTH = 255;

export function validateHandle(handle: string): string {
  if (handle.length === 0 || handle.length > MAX_HANDLE_LENGTH) {
    throw new InvalidInputError('INVALID_ARGUMENT', `handle must be 1 to ${MAX_HANDLE_LENGTH} characters (got ${handle.length})`);
  }
  return handle;
}

function families(requested: number[] | undefined, ip: IpAddress | null, ipText?: string): (4 | 6)[] {
  if (requested === undefined) return [ip ? ip.family : 4];
  const distinct = [...new Set(requested)].sort();
  if (distinct.length === 0 || distinct.some((f) => f !== 4 && f !== 6) || distinct.length !== requested.length) {
    throw new InvalidInputError('INVALID_ARGUMENT', `families must be [4], [6] or [4,6] (got ${JSON.stringify(requested)})`);
  }
  if (ip && (distinct.length !== 1 || distinct[0] !== ip.family)) {
    throw new InvalidInputError(
      'INVALID_ARGUMENT',
      `ip ${ipText} asks for one IPv${ip.family} address; families ${JSON.stringify(requested)} does not fit`,
    );
  }
  return distinct as (4 | 6)[];
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
  const ip = input.ip === undefined ? null : ipArgument(input.ip);
  return {
    handle: input.handle,
    ...inCluster(validateClusterName(input.cluster ?? DEFAULT_CLUSTER)),
    node: input.node,
    namespace: input.namespace,
    pod: input.pod,
    podUid: input.podUid ?? null,
    ...(input.network === undefined ? {} : { network: validateNetwork(input.network) }),
    owner: owner(input),
    ip,
    families: families(input.families, ip, input.ip),
  };
}
