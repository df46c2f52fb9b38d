import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import {
  AllocateForClaimCommand,
  claimOfPod,
  clusterOf,
  inCluster,
  interfaceOfHandle,
  allocationRefusal,
  assertIpSetReservable,
  assertNodeMayAllocate,
  assertNodeMayHold,
  assertPodOnNode,
  chooseSelection,
  DomainError,
  IpSetAggregate,
  ipSetId,
  ipSetRefusal,
  ipSetReserved,
  ordinalAddress,
  parseAllocationRequest,
  planAllocation,
  planIpSetAllocation,
  poolMayHold,
  PoolAggregate,
  statefulSetId,
  statefulSetPod,
  StatefulSetAggregate,
  type AllocateIpCommand,
  type AllocateResult,
  type AllocationPlan,
  type AllocationPlanRequest,
  type AllocationRequestSpec,
  type CommandMetadata,
  type Exclusion,
  type IpSetState,
  type IpSetWanted,
  type LoadedPool,
  type PassedOver,
  type PoolView,
  type RangeReserved,
  type SelectionRule,
  type StatefulSetRef,
  type UnitOfWork,
} from '@ipledger/domain';
import type { Loaded, RecordedEvent } from '@ipledger/event-store';
import {
  allocationFromEvent,
  eligiblePoolPages,
  findAllocationsByHandle,
  findIpSet,
  noEligiblePoolMessage,
  type ByNameReads,
  type UnreadStart,
  type ReservationView,
} from '@ipledger/projections';
import type { Pool } from 'pg';
import type { Config } from '../config';
import { EventWriter, type Change } from '../infrastructure/event-writer';
import { AllocationReads } from './allocation-reads';
import type { ApiViews } from '../ipam/api-views';
import { POD_LOOKUP, type PodIpSet, type PodLookup, type StoredPod } from './pod-lookup';
import { KeyedMutex } from '../infrastructure/keyed-mutex';
import { PoolGroupCommit } from '../infrastructure/pool-group-commit';
import { attempts } from '../infrastructure/unit-of-work';
import { outsideRequest } from '../infrastructure/current-request';
import { CONFIG, PG_POOL } from '../infrastructure/tokens';
import { DatabaseClock } from '../infrastructure/database-clock';

/** The contract's result of an allocation (libs/domain/src/ipam.ts), with the API's allocation view. */
export type AllocateIpResult = AllocateResult<ApiViews>;

/** What trying one pool gave: the plan so far, and what the caller needs to finish (recorded events, or a held lock). */
type Tried<X> = X & { plan: AllocationPlan };

/**
 * A pod's ip-set, where it is: the pool and range holding it, or, for the workload's first pod
 * (`reserved` null), the workload's stream as read before reserving it.
 */
interface PlacedIpSet extends PodIpSet {
  reserved: { pool: string; range: { start: string } } | null;
  workload: Loaded<IpSetState> | null;
}

/**
 * A family's request, and the pool it is pinned to when it is a StatefulSet ordinal's reserved
 * address or its workload's ip-set's; `reserve` when its workload's set is not reserved yet, with
 * the workload's stream (`workload`) that the reservation appends to.
 */
interface FamilyRequest {
  request: AllocationPlanRequest;
  pinnedTo: string | null;
  reserve: IpSetWanted | null;
  workload: Loaded<IpSetState> | null;
}

/**
 * The request, as resolved from the command and what Kubernetes holds of its pod: the command
 * itself (passed whole, so fields added to it flow through), its parsed spec with the families
 * the annotations ask for, the selection rule, and the workload's ip-set the pod takes from.
 */
interface ResolvedRequest {
  command: AllocateIpCommand;
  spec: AllocationRequestSpec;
  rule: SelectionRule;
  ipSet: PodIpSet | null;
  stored: StoredPod | null;
  /** the claim the pod's attachment belongs to (a VM's launcher, an IPAMClaim's reference): its addresses are the claim's */
  claim: string | null;
}

/** The start as read: what the handle holds, the ordinal's owner, and the eligibility check's reads that came with it. */
interface ReadStart {
  from: 'read';
  held: AllocateIpResult['items'];
  owner: StatefulSetOwner | null;
  known: ByNameReads;
}

/**
 * The start as this process has it cached, with no read: the handle taken to hold nothing, the
 * ordinal's owner as cached, and the one pool to decide in. The append proves it: the pool's
 * expected version its state, `unread` (unreadStartPrecondition) what the read would have found.
 */
interface CachedStart {
  from: 'cache';
  held: [];
  owner: StatefulSetOwner | null;
  pool: string;
  unread: UnreadStart;
}

type Start = ReadStart | CachedStart;

/** A StatefulSet pod's reservation and ordinal: its ordinal's address is pinned. */
interface StatefulSetOwner {
  reservation: ReservationView;
  ordinal: number;
}

/**
 * The one allocation pipeline, read top to bottom (run):
 * 1. resolve the request: the pod's and namespace's annotations (through the PodLookup port),
 *    the selection rule, the families, the workload's ip-set;
 * 2. load the start: on the first attempt, from the cache where it is provably current (the
 *    append's expected version and precondition check it: see cachedStart), else read; a cached
 *    start that decides nothing is read and decided again;
 * 3. plan: one request per family, each decided by the domain's planners (planAllocation,
 *    planIpSetAllocation), pure: dual stack, a StatefulSet's ordinal and an ip-set are what the
 *    family requests hold, not paths of their own;
 * 4. commit: in the pool's group commit (one family of an own transaction), else every family's
 *    pool locked and appended in one transaction of the command's unit of work (both or neither).
 * The command's unit of work says whether a conflict decides again (attempts) and how it commits.
 */
@Injectable()
export class AllocationPipeline {
  /** StatefulSets whose reservation is being loaded into the cache (cacheReservation) */
  private readonly caching = new Set<string>();

  constructor(
    private readonly writer: EventWriter,
    private readonly mutex: KeyedMutex,
    private readonly groupCommit: PoolGroupCommit,
    private readonly reads: AllocationReads,
    @Inject(PG_POOL) private readonly db: Pool,
    @Inject(CONFIG) private readonly config: Config,
    private readonly clock: DatabaseClock,
    @Inject(POD_LOOKUP) private readonly pods: PodLookup,
    private readonly commands: CommandBus,
  ) {}

  /** The result, and the creation time of the pod it is for when named by uid (an external allocation may merely be named like one). */
  async run(command: AllocateIpCommand): Promise<{ result: AllocateIpResult; podCreatedAt: string | null }> {
    // 1. resolve the request
    const resolved = await this.resolve(command);
    const { spec, rule } = resolved;
    const { metadata, unit } = command;
    // an attachment of a claim takes the claim's addresses as one of its references (claims/)
    if (resolved.claim) {
      const forClaim = new AllocateForClaimCommand({ ...command.input, claim: resolved.claim }, metadata, unit, command.restriction);
      return { result: await this.commands.execute<AllocateForClaimCommand, AllocateIpResult>(forClaim), podCreatedAt: null };
    }
    const result = await attempts(unit, async (attempt) => {
      // 2. load the start: cached where provably current, decided in one round trip (not on a
      // conflict's retry: the state that failed, or the precondition, is not trusted twice); read
      // when there is none, or when the cached one decided nothing (a refusal's full reasons need the read)
      const cached = attempt === 1 ? this.cachedStart(resolved, unit) : null;
      return (
        (cached && (await this.decide(resolved, cached, metadata, unit))) ??
        this.decide(resolved, await this.readStart(spec, rule), metadata, unit)
      );
    });
    // a retry's answer is what the handle holds: to a node's credential, only when its node's
    if (!result.created) assertNodeMayHold(command.restriction, spec.handle, result.items);
    return { result, podCreatedAt: spec.podUid !== null ? (resolved.stored?.createdAt ?? null) : null };
  }

  /** Steps 3 and 4 from a start; null when a cached start decided nothing (then the caller reads it). */
  private async decide(resolved: ResolvedRequest, start: ReadStart, metadata: CommandMetadata, unit: UnitOfWork): Promise<AllocateIpResult>;
  private async decide(
    resolved: ResolvedRequest,
    start: CachedStart,
    metadata: CommandMetadata,
    unit: UnitOfWork,
  ): Promise<AllocateIpResult | null>;
  private async decide(
    resolved: ResolvedRequest,
    start: Start,
    metadata: CommandMetadata,
    unit: UnitOfWork,
  ): Promise<AllocateIpResult | null> {
    const { spec, rule, ipSet } = resolved;
    if (start.held.length > 0) return { created: false, items: start.held };
    // 3. plan: one request per family, each pinned where its ordinal or its workload's set says
    const families = familyRequests(spec, start.owner, ipSet && (await this.placeIpSet(ipSet, unit)), this.clock.now());
    // 4. commit: the group commit takes one family of an own transaction (a cached start is one);
    // several families, a set's reservation (two streams) and a fenced unit append in one transaction of their own
    return start.from === 'cache' || (families.length === 1 && unit.mode === 'own-transaction' && !families[0].workload)
      ? this.commitInGroup(families[0], rule, start, metadata)
      : this.commitTogether(families, rule, start, metadata, unit);
  }

  /** Step 1: the request as the command and its pod's annotations make it. */
  private async resolve(command: AllocateIpCommand): Promise<ResolvedRequest> {
    const { input, restriction } = command;
    const request = parseAllocationRequest(input);
    assertNodeMayAllocate(restriction, request);
    const stored = await this.podAnnotations(request, restriction !== null);
    assertPodOnNode(restriction, request, stored?.node);
    const { rule, families: annotatedFamilies } = chooseSelection(input, stored?.annotated ?? null, this.config.defaultMatchLabel);
    // an address asked for by `ip` fixes its family: the annotation's families apply to the others
    const spec = annotatedFamilies && request.ips.length === 0 ? { ...request, families: annotatedFamilies } : request;
    // only a pod asking for no particular address takes one of its workload's set, in the pod's cluster
    const ipSet =
      stored?.ipSet && spec.ips.length === 0 ? { ...stored.ipSet, ref: { ...stored.ipSet.ref, ...inCluster(clusterOf(spec)) } } : null;
    const attachment = { network: spec.network ?? null, interfaceName: interfaceOfHandle(spec.handle) };
    const claim = stored?.claiming ? claimOfPod({ ...stored.claiming, cluster: clusterOf(spec) }, attachment) : null;
    return { command, spec, rule, ipSet, stored, claim };
  }

  /**
   * Step 2 read: what the handle holds, the pod's StatefulSet's reservation (its ordinal's owner),
   * and the node, its cluster's labels and named pools the eligibility check needs, in one statement.
   */
  private async readStart(spec: AllocationRequestSpec, rule: SelectionRule): Promise<ReadStart> {
    const pod = statefulSetPod(spec.pod);
    const start = await this.reads.start({
      handle: spec.handle,
      cluster: spec.cluster,
      namespace: spec.namespace,
      statefulSet: pod?.statefulSet ?? null,
      node: spec.node,
      pools: rule.kind === 'pools' ? rule.names : [],
      network: spec.network,
    });
    if (pod && start.reservation) this.cacheReservation(clusterOf(spec), spec.namespace, pod.statefulSet);
    return {
      from: 'read',
      held: start.held,
      owner: pod && start.reservation && { reservation: start.reservation, ordinal: pod.ordinal },
      known: {
        node: () => Promise.resolve(start.node),
        pools: () => Promise.resolve(start.pools),
        space: () => Promise.resolve(start.space),
        clusterLabels: () => Promise.resolve(start.clusterLabels),
      },
    };
  }

  /**
   * Step 2's cached start, the common case in one round trip: one family, decided on cached state
   * without the start read, in the one pool a `pools` rule names when its state needs no node or
   * cluster labels to be eligible (no nodeSelector, no clusterSelector), or, for a StatefulSet's pod
   * whose reservation this process has cached, in the pool of its ordinal's address (whatever the
   * rule, as the read path does). Null where that does not apply: a fenced or deferred unit commits
   * on its own (the group commit is an own transaction's), and a pod of a workload with an ip-set
   * reads where its set is.
   */
  private cachedStart({ spec, rule, ipSet }: ResolvedRequest, unit: UnitOfWork): CachedStart | null {
    if (spec.families.length !== 1 || unit.mode !== 'own-transaction' || ipSet) return null;
    const pod = statefulSetPod(spec.pod);
    const reservation = pod && this.cachedReservation(clusterOf(spec), spec.namespace, pod.statefulSet);
    const owner = pod && reservation ? { reservation, ordinal: pod.ordinal } : null;
    const [family] = familyRequests(spec, owner, null, undefined);
    const pool = family.pinnedTo ?? (rule.kind === 'pools' && rule.names.length === 1 ? rule.names[0] : null);
    const cached = pool && this.writer.repository.cached(PoolAggregate, pool);
    if (!pool || !cached || !eligibleUnread(family, cached.state)) return null;
    const unread: UnreadStart = {
      handle: spec.handle,
      cluster: spec.cluster,
      namespace: spec.namespace,
      statefulSet: pod?.statefulSet ?? null,
      reservationVersion: reservation?.version ?? null,
      // a pool of no network serves a network only while no pool has it
      ...(family.pinnedTo === null && cached.state.network === null && spec.network !== undefined ? { networkInNoPool: spec.network } : {}),
    };
    return { from: 'cache', held: [], owner, pool, unread };
  }

  /** The StatefulSet's reservation as this process has it cached (its stream's version with it); null when none is cached. */
  private cachedReservation(cluster: string, namespace: string, name: string): ReservationView | null {
    const cached = this.writer.repository.cached(StatefulSetAggregate, statefulSetId(cluster, namespace, name));
    return cached?.state.reservation ? { ...cached.state.reservation, cluster, version: cached.version } : null;
  }

  /**
   * A reservation the start read found but this process has not cached (another replica
   * reconciled it, or this one restarted) is loaded in the background, outside the request: the
   * StatefulSet's next pods are then decided without the read.
   */
  private cacheReservation(cluster: string, namespace: string, name: string): void {
    const id = statefulSetId(cluster, namespace, name);
    // a scale-up's pods read at once: one load for them all
    if (this.caching.has(id) || this.writer.repository.cached(StatefulSetAggregate, id)) return;
    this.caching.add(id);
    outsideRequest(() => this.writer.repository.load(StatefulSetAggregate, id))
      // a failed load costs only the read again next time
      .catch(() => undefined)
      .finally(() => this.caching.delete(id));
  }

  /**
   * The pod's and its namespace's pool annotations, and the pod's creation time, for an allocation
   * for a pod while the Kubernetes consumer is on (waiting for the pod when the watcher has not
   * sent it yet, and for a node's credential until it is bound to a node); an external allocation,
   * or any with the consumer off, reads none and waits for nothing.
   */
  private podAnnotations(spec: AllocationRequestSpec, bound: boolean): Promise<StoredPod | null> {
    const kubernetes = this.config.kubernetes;
    if (spec.owner !== 'pod' || !kubernetes) return Promise.resolve(null);
    return this.pods.awaitPod(spec, kubernetes.podWaitMs, bound);
  }

  /**
   * Where the pod's set is: in the read model, or, for the workload's first pod, nowhere yet, with
   * the workload's stream read for the reservation's append (a set reserved since the read model
   * was read is taken from it). A workload whose deletion was applied gets no new set (its
   * tombstone), unless the consumer now knows a new workload of the name.
   */
  private async placeIpSet(ipSet: PodIpSet, unit: UnitOfWork): Promise<PlacedIpSet> {
    const reserved = await findIpSet(this.db, ipSet.ref);
    if (reserved) return { ...ipSet, reserved, workload: null };
    const workload = await this.writer.load(IpSetAggregate, ipSetId(ipSet.ref), unit);
    const { set, deletedUid } = workload.state;
    if (set) return { ...ipSet, reserved: { pool: set.pool, range: set }, workload: null };
    if (deletedUid !== null) assertIpSetReservable(workload.state, ipSet.ref, await this.pods.liveWorkloadUid(ipSet.ref));
    return { ...ipSet, reserved: null, workload };
  }

  /**
   * Step 4 for one family: decided and appended in the chosen pool's group commit; from a cached
   * start, with the precondition that proves it. Null when a cached start decided nothing, or its
   * pool knew the handle and the database no longer does (released by another replica).
   */
  private async commitInGroup(
    family: FamilyRequest,
    rule: SelectionRule,
    start: Start,
    metadata: CommandMetadata,
  ): Promise<AllocateIpResult | null> {
    const { plan, recorded } = await this.walk(family, rule, start, (pool, passedOver) =>
      this.groupCommit.run(pool, {
        metadata,
        ...(start.from === 'cache' ? { unread: start.unread } : {}),
        decide: (state) => {
          const tried = start.from === 'cache' ? planUnread(family, pool, state) : planFamily(family, { name: pool, state }, passedOver);
          return {
            events: tried.decision?.events ?? [],
            answer: (events: RecordedEvent[]) => ({ plan: tried, recorded: events }),
          };
        },
      }),
    );
    if (!plan.decision) return null;
    const result = await this.answer([{ plan, recorded }], family.request);
    return start.from === 'cache' && result.items.length === 0 ? null : result;
  }

  /**
   * Step 4 for several families (or a fenced unit, or a set's reservation): one pool lock at a time, IPv4 first,
   * kept for the chosen pools until the one append is done. A reservation appends to its workload's
   * stream too, at the version read before: of two first pods reserving in two pools, one commits
   * and the other decides again, finding the set.
   */
  private async commitTogether(
    families: FamilyRequest[],
    rule: SelectionRule,
    start: ReadStart,
    metadata: CommandMetadata,
    unit: UnitOfWork,
  ): Promise<AllocateIpResult> {
    const unlocks: Array<() => void> = [];
    try {
      const chosen: Array<Tried<{ change: Change }>> = [];
      for (const family of families) {
        chosen.push(
          await this.walk(family, rule, start, async (pool, passedOver) => {
            const unlock = await this.mutex.lockPool(pool);
            try {
              const loaded = await this.writer.load(PoolAggregate, pool, unit);
              const plan = planFamily(family, { name: pool, state: loaded.state }, passedOver);
              if (plan.decision) unlocks.push(unlock);
              return { plan, change: { type: PoolAggregate, loaded, events: plan.decision?.events ?? [] } };
            } finally {
              if (!unlocks.includes(unlock)) unlock();
            }
          }),
        );
      }
      const reservations = families.flatMap((family, i) => reservationRecord(family, chosen[i].plan) ?? []);
      const recorded = await this.writer.append(unit, [...chosen.map(({ change }) => change), ...reservations], metadata);
      const answers = chosen.map(({ plan, change }) => ({ plan, recorded: recorded.filter((e) => e.streamId === change.loaded.streamId) }));
      return await this.answer(answers, families[0].request);
    } finally {
      unlocks.forEach((unlock) => unlock());
    }
  }

  /**
   * Walks the eligible pools of the request's family page by page, in order (or only the pool it
   * is pinned to, or a cached start's), until `tryPool` decides an address; the refusal otherwise
   * comes from the domain. A cached start's undecided try is returned as it is: its caller reads.
   */
  private async walk<X>(
    { request, pinnedTo, reserve }: FamilyRequest,
    rule: SelectionRule,
    start: Start,
    tryPool: (pool: string, passedOver: PassedOver[]) => Promise<Tried<X>>,
  ): Promise<Tried<X>> {
    if (start.from === 'cache') return tryPool(start.pool, []);
    if (pinnedTo) {
      const tried = await tryPool(pinnedTo, []);
      if (tried.plan.decision) return tried;
      throw allocationRefusal(request, tried.plan.passedOver);
    }
    const excluded: Exclusion[] = [];
    let passedOver: PassedOver[] = [];
    let eligibleSeen = 0;
    for await (const page of eligiblePoolPages(
      this.db,
      rule,
      request.node,
      [request.family],
      undefined,
      start.known,
      request.network ?? null,
      clusterOf(request),
    )) {
      excluded.push(...page.excluded);
      for (const candidate of page.eligible) {
        eligibleSeen++;
        if (!poolMayHold(candidate.cidr, request)) continue;
        const tried = await tryPool(candidate.name, passedOver);
        if (tried.plan.decision) return tried;
        passedOver = tried.plan.passedOver;
      }
    }
    if (eligibleSeen === 0) throw new DomainError('NO_ELIGIBLE_POOL', noEligiblePoolMessage(rule, request.node, excluded));
    throw reserve && request.ipSet ? ipSetRefusal(request.ipSet, reserve, passedOver) : allocationRefusal(request, passedOver);
  }

  /** The answer from the events appended; a pool that already knew the handle appended none, so read what it holds. */
  private async answer(
    decided: Array<{ plan: AllocationPlan; recorded: RecordedEvent[] }>,
    request: AllocationPlanRequest,
  ): Promise<AllocateIpResult> {
    // a block claimed for the address is recorded before it: only the IpAllocated answers
    const items = decided.flatMap(({ plan, recorded }) =>
      recorded.filter((event) => event.type === 'IpAllocated').map((event) => allocationFromEvent(event, plan.decision!)),
    );
    if (items.length === decided.length) return { created: true, items };
    return { created: items.length > 0, items: await findAllocationsByHandle(this.db, request.handle, clusterOf(request)) };
  }
}

/**
 * One request per family. A pod `<name>-<ordinal>` of a StatefulSet with a reservation in this
 * namespace gets its ordinal's address in that range (unless it asked for an address). A pod of a
 * workload with an ip-set takes its address of the set's family in the set: in the pool that holds
 * it, or, for the workload's first pod, in the first eligible pool it fits (the set is one range of
 * one family: a `<first>-<last>` set's, else the first family asked for); any other family is
 * allocated as usual.
 */
function familyRequests(
  spec: AllocationRequestSpec,
  owner: StatefulSetOwner | null,
  ipSet: PlacedIpSet | null,
  now: number | undefined,
): FamilyRequest[] {
  const statefulSet: StatefulSetRef | undefined = owner
    ? { namespace: spec.namespace, name: owner.reservation.name, ordinal: owner.ordinal }
    : undefined;
  const { ips, families, ...holder } = spec;
  const setFamily = ipSet && ipSetFamily(ipSet, families[0]);
  return families.map((family) => {
    if (ipSet && family === setFamily) {
      const request: AllocationPlanRequest = { ...holder, family, ipSet: ipSet.ref, pinned: ipSet.reserved !== null, now };
      return { request, pinnedTo: ipSet.reserved?.pool ?? null, reserve: ipSet.reserved ? null : ipSet.wanted, workload: ipSet.workload };
    }
    const asked = ips.find((ip) => ip.family === family);
    const pinned = ips.length === 0 && owner && statefulSet ? ordinalAddress(owner.reservation, statefulSet, family) : null;
    const request: AllocationPlanRequest = { ...holder, family, ip: pinned?.ip ?? asked?.value, statefulSet, pinned: pinned !== null, now };
    return { request, pinnedTo: pinned?.pool ?? null, reserve: null, workload: null };
  });
}

/** The family of the workload's set: of the range it holds, or asks for; a set of a size is of the first family asked for. */
function ipSetFamily({ reserved, wanted }: PlacedIpSet, first: 4 | 6): 4 | 6 {
  if (reserved) return reserved.range.start.includes(':') ? 6 : 4;
  return 'size' in wanted ? first : wanted.first.family;
}

/** One pool's try for a family: its workload's ip-set reserved there first when it has none yet, else the usual plan. */
function planFamily({ request, reserve }: FamilyRequest, pool: LoadedPool, passedOver: PassedOver[]): AllocationPlan {
  return reserve && request.ipSet
    ? planIpSetAllocation(pool, { ...request, ipSet: request.ipSet }, reserve, passedOver)
    : planAllocation([pool], request, passedOver);
}

/** The workload's record of the set its first pod's plan reserved, for its stream; null when the plan reserved none. */
function reservationRecord({ workload, request }: FamilyRequest, plan: AllocationPlan): Change | null {
  const range = plan.decision?.events.find((event): event is RangeReserved => event.type === 'RangeReserved');
  return workload && request.ipSet && range
    ? { type: IpSetAggregate, loaded: workload, events: [ipSetReserved(request.ipSet, range)] }
    : null;
}

/**
 * A pool a cached start may decide in: the one its ordinal's address is pinned to (taken there as
 * the read path's walk does, without the eligibility check), or a named one eligible without reads.
 */
function eligibleUnread({ request, pinnedTo }: FamilyRequest, state: PoolView): boolean {
  return pinnedTo !== null || (eligibleWithoutNode(state, request) && inAskedSpace(state, request));
}

/** A `pools` rule's pool that is eligible whatever the node's and cluster's labels: it exists, is of the family, enabled, and selects no nodes or clusters. */
function eligibleWithoutNode(state: PoolView, request: AllocationPlanRequest): boolean {
  return (
    state.exists &&
    state.cidr?.family === request.family &&
    !state.disabled &&
    state.nodeSelector === null &&
    state.clusterSelector === null
  );
}

/** A pool the request's network may take it from without a read: of that network, or of none (then checked in the append: unreadStartPrecondition). */
function inAskedSpace(state: PoolView, request: AllocationPlanRequest): boolean {
  return state.network === null || state.network === request.network;
}

/** A cached start's plan, in its pool as the batch left it; undecided for a refusal, which the read start then gives with its full reasons. */
function planUnread(family: FamilyRequest, pool: string, state: PoolView): AllocationPlan {
  const undecided = { decision: null, passedOver: [] };
  if (!eligibleUnread(family, state)) return undecided;
  try {
    return planAllocation([{ name: pool, state }], family.request);
  } catch {
    return undecided;
  }
}
