import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  AllocateIpCommand,
  decideAllocate,
  DomainError,
  parseAllocationRequest,
  PoolAggregate,
  selectionRule,
  type AllocationRequestSpec,
  type Exclusion,
  type SelectionRule,
  type StatefulSetRef,
  poolGateway,
  addressForOrdinal,
  statefulSetPod,
} from '@ipledger/domain';
import { cidrContains, formatCidr, formatIp, parseCidr, parseIp } from '@ipledger/ip';
import {
  allocationFromEvent,
  eligiblePoolPages,
  findAllocationsByHandle,
  noEligiblePoolMessage,
  type AllocationView,
  findStatefulSet,
  type ReservationView,
} from '@ipledger/projections';
import type { Pool } from 'pg';
import type { Config } from '../config';
import { EventWriter, type Change } from '../infrastructure/event-writer';
import { KeyedMutex } from '../infrastructure/keyed-mutex';
import { retryOnConflict } from '../infrastructure/retry-on-conflict';
import { CONFIG, PG_POOL } from '../infrastructure/tokens';

interface Owner {
  ref: StatefulSetRef;
  reservation: ReservationView;
}

/** Where a StatefulSet pod's address is reserved, when its range covers the ordinal in this family (and no ip was asked for). */
function reservedAddress({ ref, reservation }: Owner, family: 4 | 6, request: AllocationRequestSpec): { pool: string; ip: bigint } | null {
  if (request.ip || !reservation.range || !reservation.pool) return null;
  const start = parseIp(reservation.range.start);
  if (start.family !== family) return null;
  const ip = addressForOrdinal({ start: start.value, end: parseIp(reservation.range.end).value }, reservation.ordinalsStart, ref.ordinal);
  return ip === null ? null : { pool: reservation.pool, ip };
}

interface Decided {
  change: Change;
  /** the chosen pool's CIDR and gateway, for the response */
  pool: { cidr: string; gateway: string | null };
}

/** Refusals that pass over a pool for the next one (and how the final message names them), rather than fail the request. */
const PASSED_OVER: Partial<Record<string, string>> = { POOL_EXHAUSTED: 'full', POOL_DISABLED: 'disabled', POOL_NOT_FOUND: 'deleted' };

export interface AllocateIpResult {
  /** false when the handle already held its addresses (a retried CNI ADD) */
  created: boolean;
  /** what the handle holds, IPv4 first */
  items: AllocationView[];
}

/**
 * Allocation: per family, the eligible pools are tried in order and the first that can decide an
 * address wins. All families are appended in one transaction, so dual stack is both or neither.
 */
@CommandHandler(AllocateIpCommand)
export class AllocateIpHandler implements ICommandHandler<AllocateIpCommand, AllocateIpResult> {
  constructor(
    private readonly writer: EventWriter,
    private readonly mutex: KeyedMutex,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async execute({ input, metadata }: AllocateIpCommand): Promise<AllocateIpResult> {
    const request = parseAllocationRequest(input);
    const rule = selectionRule(input, this.config.defaultMatchLabel);
    return retryOnConflict(async () => {
      const held = await findAllocationsByHandle(this.pool, request.handle);
      if (held.length > 0) return { created: false, items: held };
      // IPv4 before IPv6, one pool lock at a time within a family: lock order is the same for
      // every request (and for release), so two requests never wait on each other in a cycle.
      const owner = await this.statefulSetOwner(request);
      const unlocks: Array<() => void> = [];
      try {
        const decided: Decided[] = [];
        for (const family of request.families) {
          const reserved = owner && reservedAddress(owner, family, request);
          decided.push(
            reserved
              ? await this.decideIn(reserved.pool, request, owner.ref, reserved.ip, unlocks)
              : await this.decideInFamily(request, rule, family, owner?.ref, unlocks),
          );
        }
        const recorded = await this.writer.append(
          decided.map((d) => d.change),
          metadata,
        );
        const items = recorded.map((event) =>
          allocationFromEvent(event, decided.find((d) => d.change.loaded.streamId === event.streamId)!.pool),
        );
        // a pool that already knew the handle appends nothing; read what it holds instead
        return { created: true, items: items.length === decided.length ? items : await findAllocationsByHandle(this.pool, request.handle) };
      } finally {
        unlocks.forEach((unlock) => unlock());
      }
    });
  }

  /** A pod `<name>-<ordinal>` of a StatefulSet with a reservation in this namespace belongs to it. */
  private async statefulSetOwner(request: AllocationRequestSpec): Promise<Owner | null> {
    const pod = statefulSetPod(request.pod);
    const reservation = pod && (await findStatefulSet(this.pool, request.namespace, pod.statefulSet));
    return pod && reservation ? { ref: { namespace: request.namespace, name: reservation.name, ordinal: pod.ordinal }, reservation } : null;
  }

  /** The ordinal's address in its StatefulSet's range: that pool and that address, no other. */
  private async decideIn(
    pool: string,
    request: AllocationRequestSpec,
    statefulSet: StatefulSetRef,
    ip: bigint,
    unlocks: Array<() => void>,
  ): Promise<Decided> {
    const unlock = await this.mutex.lock(`pool-${pool}`);
    unlocks.push(unlock);
    const loaded = await this.writer.load(PoolAggregate, pool);
    const decision = decideAllocate(loaded.state, { ...request, ip, statefulSet });
    return {
      change: { type: PoolAggregate, loaded, events: decision.event ? [decision.event] : [] },
      pool: { cidr: formatCidr(loaded.state.cidr!), gateway: poolGateway(loaded.state) },
    };
  }

  /**
   * Walks the eligible pools page by page, in order, and returns the first decision that yields
   * an address, still holding that pool's lock (pushed on `unlocks`) until the append is done.
   */
  private async decideInFamily(
    request: AllocationRequestSpec,
    rule: SelectionRule,
    family: 4 | 6,
    statefulSet: StatefulSetRef | undefined,
    unlocks: Array<() => void>,
  ): Promise<Decided> {
    const ip = request.ip;
    const excluded: Exclusion[] = [];
    const passedOver: string[] = [];
    let eligibleSeen = 0;
    for await (const page of eligiblePoolPages(this.pool, rule, request.node, [family])) {
      excluded.push(...page.excluded);
      for (const candidate of page.eligible) {
        eligibleSeen++;
        if (ip && !cidrContains(parseCidr(candidate.cidr), ip)) continue;
        const unlock = await this.mutex.lock(`pool-${candidate.name}`);
        try {
          const loaded = await this.writer.load(PoolAggregate, candidate.name);
          const decision = decideAllocate(loaded.state, { ...request, ip: ip?.value, statefulSet });
          unlocks.push(unlock);
          return {
            change: { type: PoolAggregate, loaded, events: decision.event ? [decision.event] : [] },
            pool: { cidr: candidate.cidr, gateway: candidate.gateway },
          };
        } catch (err) {
          unlock();
          const why = err instanceof DomainError ? PASSED_OVER[err.code] : undefined;
          if (!why) throw err;
          passedOver.push(`${candidate.name} (${why})`);
        }
      }
    }
    if (eligibleSeen === 0) throw new DomainError('NO_ELIGIBLE_POOL', noEligiblePoolMessage(rule, request.node, excluded));
    if (ip && passedOver.length === 0) {
      throw new DomainError('IP_NOT_IN_POOL', `${formatIp(ip)} is not inside any pool eligible for node "${request.node}"`);
    }
    throw new DomainError('POOL_EXHAUSTED', `no free IPv${family} address in the eligible pools: ${passedOver.join(', ')}`);
  }
}
