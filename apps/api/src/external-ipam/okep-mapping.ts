import { createHash } from 'node:crypto';
import {
  cidrArgument,
  InvalidInputError,
  ipArgument,
  MAX_CLAIM_NAME_LENGTH,
  MAX_HANDLE_LENGTH,
  validateClusterName,
  validateNetwork,
  type AllocateIpInput,
  type PoolSpecInput,
} from '@ipledger/domain';
import { cidrContains, formatCidr, formatIp, type Cidr, type IpAddress } from '@ipledger/ip';

/**
 * How each field of OKEP-6831's contract maps onto ipledger's (docs/external-ipam.md has the same
 * table for people). Every translation between the two is here, so that a change of one mapping
 * (per-cluster handles, a claim for `owner`) is a change of this file.
 *
 * | OKEP                               | ipledger                                                        |
 * |------------------------------------|-----------------------------------------------------------------|
 * | network                            | a pool's `network` (its own address space), an allocation's     |
 * | subnets (register)                 | one pool a subnet, named by poolNameOf                          |
 * | exclude_ips                        | the pool's `reserved`                                           |
 * | cluster                            | the allocation's `cluster` and `node`; named in the handle too  |
 * | workload_id within (cluster, net)  | the handle (handleOf); `namespace`/`pod` when it is `ns/pod`    |
 * | requested_ips                      | the allocation's `ips` (one a family, all or none)              |
 * | owner within network               | a claim (claimOf): the workload's handle one of its references  |
 * | ips (answers)                      | `<ip>/<prefix length of the pool's CIDR>`                       |
 * | metadata                           | nothing: it must not affect allocation, and is not stored       |
 */

/** A pool a registered subnet becomes: `ext-` then the network (made a DNS-1123 label, cut short) then a digest of network and subnet. */
export function poolNameOf(network: string, subnet: Cidr): string {
  const digest = createHash('sha256')
    .update(`${network}\n${formatCidr(subnet)}`)
    .digest('hex')
    .slice(0, 12);
  const readable = network
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return readable ? `ext-${readable}-${digest}` : `ext-${digest}`;
}

/** A registration's subnets, each a CIDR, none twice. */
export function subnetsOf(texts: readonly string[]): Cidr[] {
  const subnets = texts.map(cidrArgument);
  const written = subnets.map(formatCidr);
  const twice = written.find((cidr, i) => written.indexOf(cidr) !== i);
  if (twice) throw new InvalidInputError('INVALID_CIDR', `subnets names ${twice} twice`);
  return subnets;
}

/** The pools a registration makes: one a subnet, each holding back the excluded addresses inside it. */
export function poolsOf(network: string, subnets: readonly Cidr[], excluded: readonly IpAddress[]): PoolSpecInput[] {
  const outside = excluded.find((ip) => !subnets.some((subnet) => cidrContains(subnet, ip)));
  if (outside) throw new InvalidInputError('INVALID_ARGUMENT', `exclude_ips ${formatIp(outside)} is in none of the subnets`);
  return subnets.map((subnet) => ({
    name: poolNameOf(network, subnet),
    cidr: formatCidr(subnet),
    network,
    reserved: excluded.filter((ip) => cidrContains(subnet, ip)).map(formatIp),
  }));
}

/** The handle's common start for every workload of a cluster: what deregister counts by. */
export const clusterHandlePrefix = (cluster: string): string => `ext:${cluster}:`;

/**
 * `workload_id` within (cluster, network) → the handle: `ext:<cluster>:<network>:<workload_id>`,
 * readable in the audit history; when that is longer than a handle may be,
 * `ext:<cluster>:<sha256 of network and workload_id>` (no further `:`, so the two forms never meet).
 * A cluster name and a network name hold no `:`, so distinct triples give distinct handles. The
 * allocation is in the caller's cluster as well (a handle is one within its cluster); the cluster
 * stays in the text so that deregister counts a cluster's workloads by prefix.
 */
export function handleOf(cluster: string, network: string, workloadId: string): string {
  const readable = `${clusterHandlePrefix(cluster)}${network}:${workloadId}`;
  if (readable.length <= MAX_HANDLE_LENGTH) return readable;
  return `${clusterHandlePrefix(cluster)}${createHash('sha256').update(`${network}\n${workloadId}`).digest('hex')}`;
}

/** What a claim name may hold (libs/domain's claim-name.ts). */
const CLAIM_NAME = /^[A-Za-z0-9._:/-]+$/;

/**
 * `owner` within a network → the claim that holds its addresses: `ext:<network>:<owner>`, readable
 * in the claims' listing; when that is no claim name (an owner's characters beyond `._:/-`) or
 * too long, `ext-sha256:<sha256 of network and owner>`. The two forms start apart,
 * so they never meet; an owner's addresses are per network, as the OKEP keeps them.
 */
export function claimOf(network: string, owner: string): string {
  const readable = `ext:${network}:${owner}`;
  if (readable.length <= MAX_CLAIM_NAME_LENGTH && CLAIM_NAME.test(readable)) return readable;
  return `ext-sha256:${createHash('sha256').update(`${network}\n${owner}`).digest('hex')}`;
}

const POD_NAME = /^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?)$/;

/** The namespace and pod an allocation names: Kubernetes' `namespace/pod` as it is, any other workload id as a digest under `external-ipam`. */
function workloadPod(workloadId: string): { namespace: string; pod: string } {
  const pod = POD_NAME.exec(workloadId);
  if (pod) return { namespace: pod[1], pod: pod[3] };
  return { namespace: 'external-ipam', pod: `workload-${createHash('sha256').update(workloadId).digest('hex').slice(0, 16)}` };
}

/** An address written bare or with a prefix length (`10.50.0.5`, `10.50.0.5/16`): the address. */
export function addressOf(text: string): IpAddress {
  const slash = text.indexOf('/');
  if (slash < 0) return ipArgument(text);
  // the prefix length must be one of the family's; the address itself is what is asked for
  const ip = ipArgument(text.slice(0, slash));
  const prefix = Number(text.slice(slash + 1));
  if (!/^\d{1,3}$/.test(text.slice(slash + 1)) || prefix > (ip.family === 4 ? 32 : 128)) {
    throw new InvalidInputError('INVALID_IP', `"${text}" is not an address with a prefix length`);
  }
  return ip;
}

/** The allocation an `/allocate` asks for: one address a family of the network's pools, or exactly the requested ones. */
export function allocationOf(
  request: { cluster: string; network: string; workloadId: string; requested: readonly IpAddress[]; owner?: string },
  pools: ReadonlyArray<{ name: string; family: 4 | 6 }>,
): AllocateIpInput {
  const families = [...new Set(pools.map((p) => p.family))].sort();
  return {
    handle: handleOf(request.cluster, request.network, request.workloadId),
    cluster: request.cluster,
    node: request.cluster,
    ...workloadPod(request.workloadId),
    network: request.network,
    owner: 'external',
    pools: pools.map((p) => p.name),
    ...(request.requested.length > 0 ? { ips: request.requested.map(formatIp) } : { families }),
    ...(request.owner === undefined ? {} : { claim: claimOf(request.network, request.owner) }),
  };
}

/** An answer's address: the address with its pool's prefix length. */
export const ipWithPrefix = (allocation: { ip: string; prefixLength: number }): string => `${allocation.ip}/${allocation.prefixLength}`;

/** The names a request gives, checked as ipledger checks them. */
export function checkNames(request: { cluster: string; network: string }): void {
  validateClusterName(request.cluster);
  validateNetwork(request.network);
}
