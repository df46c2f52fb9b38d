import type { Cidr } from '@ipledger/ip';
import { clusterOf, handleKey, inCluster } from '../cluster/cluster-scope';
import { DomainError } from '../errors/domain-error';
import type { BlockClaimed, IpAllocated } from '../events';
import { ipSetAddress } from '../ip-set/reserve-ip-set';
import { chooseAddress } from './address-chooser';
import { blockCidr, blockedPool, planBlock, planRequestedBlock } from './block-planner';
import { existing } from './existing-pool';
import { holderOf } from './holder';
import { poolAddress } from './pool-address';
import { inNetwork } from './pool-network';
import type { Holder, PoolView } from './pool-state';
import { rangeOwner } from './range-owner';

export interface AllocationRequest extends Holder {
  /** a specific address, already known to lie in this pool's CIDR */
  ip?: bigint;
  /** the decision's time in ms on the database's clock, for the reuse delay (see chooseAddress) */
  now?: number;
}

export interface AllocateDecision {
  ip: bigint;
  /** null when the handle already held this address (a retried request) */
  event: IpAllocated | null;
  /** the block the node claims for the address, appended before it; null when none */
  claim: BlockClaimed | null;
}

/**
 * Decides one address for a handle. A handle that already holds an address here gets the same
 * one back with no event, so a retried request never takes a second address.
 */
export function decideAllocate(state: PoolView, request: AllocationRequest): AllocateDecision {
  const pool = existing(state, state.name);
  const held = pool.byHandle.get(handleKey(clusterOf(request), request.handle));
  if (held !== undefined) return { ip: held, event: null, claim: null };
  if (pool.disabled) throw new DomainError('POOL_DISABLED', `pool "${pool.name}" is disabled and hands out no new addresses`);
  return decidePlaced(pool, request);
}

/** The address and the events for a request once it is known the handle holds none here: allocation's and adoption's (decide-adopt.ts). */
export function decidePlaced(pool: PoolView & { cidr: Cidr }, request: AllocationRequest): AllocateDecision {
  const { ip, claim, borrowed } = placeAddress(pool, request);
  const holder = holderOf({ ...request, ...(borrowed ? { borrowed } : {}) });
  return {
    ip,
    claim:
      claim === null
        ? null
        : {
            type: 'BlockClaimed',
            data: { pool: pool.name, cidr: blockCidr(blockedPool(pool)!, claim), node: request.node, ...inCluster(clusterOf(request)) },
          },
    event: {
      type: 'IpAllocated',
      data: {
        pool: pool.name,
        ip: poolAddress(pool, ip),
        family: pool.cidr.family,
        ...holder,
        ...inNetwork(pool),
      },
    },
  };
}

/**
 * The address, and in a pool with blocks the block it comes from (block-planner.ts). A StatefulSet
 * ordinal's address in its range is the StatefulSet's, and an ip-set pod's address in its set the
 * workload's, wherever the range lies: no block is claimed for either.
 */
function placeAddress(pool: PoolView & { cidr: Cidr }, request: AllocationRequest): { ip: bigint; claim: bigint | null; borrowed?: true } {
  if (request.ipSet) return { ip: ipSetAddress(pool, request.ipSet), claim: null };
  const owner = request.statefulSet && rangeOwner(clusterOf(request), request.statefulSet.namespace, request.statefulSet.name);
  const withBlocks = blockedPool(pool);
  if (!withBlocks || (request.ip !== undefined && pool.rangeSet.has(request.ip))) {
    return { ip: chooseAddress(pool, request.ip, owner, request.now), claim: null };
  }
  if (request.ip !== undefined) {
    const ip = chooseAddress(pool, request.ip, owner, request.now);
    const { claim, borrowed } = planRequestedBlock(withBlocks, clusterOf(request), request.node, ip);
    return { ip, claim, ...(borrowed ? { borrowed } : {}) };
  }
  const { span, claim, borrowed } = planBlock(withBlocks, clusterOf(request), request.node);
  return { ip: chooseAddress(pool, undefined, owner, request.now, span), claim, ...(borrowed ? { borrowed } : {}) };
}
