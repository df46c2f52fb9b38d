import { Inject, Injectable } from '@nestjs/common';
import { DomainError, InvalidInputError, type IpamCaller } from '@ipledger/domain';
import { formatCidr, type Cidr } from '@ipledger/ip';
import { countNetworkHolds, findNetworkPools, type PoolView } from '@ipledger/projections';
import type { Pool } from 'pg';
import { LIMITS } from '../http/limits';
import { isDatabaseUnavailable } from '../infrastructure/database-unavailable';
import { PG_POOL } from '../infrastructure/tokens';
import { IpamService } from '../ipam/ipam.service';
import type { AllocateDto, DeregisterDto, RegisterDto, ReleaseDto } from './dto/okep-requests.dto';
import type { OkepStatusDto } from './dto/okep-status.dto';
import { addressOf, allocationOf, checkNames, clusterHandlePrefix, handleOf, ipWithPrefix, poolsOf, subnetsOf } from './okep-mapping';

/** What /status says it serves: `owner` is a claim (co-held by at most two references), `requested_ips` exact addresses. */
export const CAPABILITIES = ['owner-references', 'requested-ips'];

/**
 * OKEP-6831's five calls over ipledger's own use cases (libs/domain/src/ipam.ts): a registration
 * creates pools, an allocation allocates, a release releases, through the same commands, aggregates
 * and events as /v1, so the audit history and the metrics are those of any allocation. The
 * translation of each field is okep-mapping.ts's; `cluster` arrives decided by the caller's
 * credential (caller-cluster.ts).
 */
@Injectable()
export class ExternalIpamAdapter {
  constructor(
    private readonly ipam: IpamService,
    @Inject(PG_POOL) private readonly db: Pool,
  ) {}

  /** One pool a subnet, made once: the same subnets again (from any cluster) find them; others are a conflict. */
  async register(body: RegisterDto, cluster: string, caller: IpamCaller): Promise<void> {
    refuseNodeCredential(caller, 'register a network');
    checkNames({ cluster, network: body.network });
    if (body.subnets.length === 0) throw new InvalidInputError('INVALID_ARGUMENT', 'subnets must name at least one CIDR');
    const subnets = subnetsOf(body.subnets);
    const pools = poolsOf(body.network, subnets, (body.exclude_ips ?? []).map(addressOf));
    if (await this.registered(body.network, subnets)) return;
    try {
      await this.ipam.createPools(pools, caller);
    } catch (err) {
      // another cluster registered the network meanwhile: the same subnets are its pools
      const raced = err instanceof DomainError && (err.code === 'POOL_EXISTS' || err.code === 'POOL_OVERLAP');
      if (!raced || !(await this.registered(body.network, subnets))) throw err;
    }
  }

  /** Nothing to undo (the pools are the network's, shared by every cluster): refused while the cluster still holds addresses on it. */
  async deregister(body: DeregisterDto, cluster: string, caller: IpamCaller): Promise<void> {
    refuseNodeCredential(caller, 'deregister a network');
    checkNames({ cluster, network: body.network });
    const held = await countNetworkHolds(this.db, body.network, clusterHandlePrefix(cluster));
    if (held > 0) {
      throw new DomainError(
        'POOL_IN_USE',
        `cluster "${cluster}" still holds addresses on network "${body.network}" (${held} allocation${held === 1 ? '' : 's'} or owner reference${held === 1 ? '' : 's'}): release them first`,
      );
    }
  }

  /**
   * One address a family of the network's subnets (or exactly the requested ones, one a family), idempotent on
   * (network, cluster, workload_id); with `owner`, the owner's claim's addresses, the workload one of
   * its at most two references (a live migration's source and target, in one cluster or two).
   */
  async allocate(body: AllocateDto, cluster: string, caller: IpamCaller): Promise<string[]> {
    checkNames({ cluster, network: body.network });
    if (Object.keys(body.metadata ?? {}).length > LIMITS.externalMetadata) {
      throw new InvalidInputError('INVALID_ARGUMENT', `metadata must have at most ${LIMITS.externalMetadata} entries`);
    }
    subnetsOf(body.subnets ?? []);
    const requested = (body.requested_ips ?? []).map(addressOf);
    const pools = await findNetworkPools(this.db, body.network);
    if (pools.length === 0) throw new DomainError('POOL_NOT_FOUND', `network "${body.network}" is not registered: /register it first`);
    const { items } = await this.ipam.allocate(
      allocationOf({ cluster, network: body.network, workloadId: body.workload_id, requested, owner: body.owner }, pools),
      caller,
    );
    return items.map(ipWithPrefix);
  }

  /** Releases what the workload holds on the network; nothing held is fine (a retried release). */
  async release(body: ReleaseDto, cluster: string, caller: IpamCaller): Promise<void> {
    checkNames({ cluster, network: body.network });
    body.ips.forEach(addressOf);
    await this.ipam.release(handleOf(cluster, body.network, body.workload_id), { ...caller, cluster });
  }

  /** Always answers: `ready` false (and no pools or usage) while the database is away. */
  async status(): Promise<OkepStatusDto> {
    const versions = { api_version: 'v1', supported_api_versions: ['v1'], capabilities: CAPABILITIES };
    let pools: PoolView[];
    try {
      pools = await findNetworkPools(this.db, null);
    } catch (err) {
      if (isDatabaseUnavailable(err)) return { ...versions, ready: false };
      throw err;
    }
    const byNetwork: OkepStatusDto['pools'] = {};
    for (const pool of pools) (byNetwork[pool.network!] ??= { subnets: [] }).subnets.push(pool.cidr);
    return { ...versions, ready: true, pools: byNetwork, usage: { IPv4: usageOf(pools, 4), IPv6: usageOf(pools, 6) } };
  }

  /** True when the network has pools of exactly these subnets, false when it has none; a conflict otherwise. */
  private async registered(network: string, subnets: readonly Cidr[]): Promise<boolean> {
    const pools = await findNetworkPools(this.db, network);
    if (pools.length === 0) return false;
    const have = pools.map((p) => p.cidr).sort();
    const want = subnets.map(formatCidr).sort();
    if (have.join() === want.join()) return true;
    throw new DomainError(
      'POOL_EXISTS',
      `network "${network}" is registered with subnets ${have.join(', ')}; this registration names ${want.join(', ')}`,
    );
  }
}

/**
 * A credential bound to a node (the CNI plugin's) allocates for its node's pods only: it may not
 * make a network's pools (a squatted network name would refuse the real registration), as it may
 * not allocate an external address (the allocation command refuses that).
 */
function refuseNodeCredential({ restriction }: IpamCaller, what: string): void {
  if (restriction) throw new DomainError('NODE_FORBIDDEN', `a credential bound to node "${restriction.node}" may not ${what}`);
}

/** Held and free addresses of one family's pools; `available` only while it fits a JSON number exactly. */
function usageOf(pools: readonly PoolView[], family: 4 | 6): { allocated: number; available?: number } {
  const mine = pools.filter((p) => p.family === family);
  const allocated = mine.reduce((sum, p) => sum + BigInt(p.allocated), 0n);
  const available = mine.reduce((sum, p) => sum + BigInt(p.free), 0n);
  return {
    allocated: Number(allocated),
    ...(available <= BigInt(Number.MAX_SAFE_INTEGER) ? { available: Number(available) } : {}),
  };
}
