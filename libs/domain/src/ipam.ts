/**
 * The IPAM contract in one file, as Calico's lib/ipam/interface.go is: every use case as a method
 * with its input, its result and the refusals it may throw. The REST controllers, the Kubernetes
 * consumer and an external IPAM adapter all call these use cases; apps/api's IpamService
 * implements the commands (IpamCommands) over the command bus, so typecheck keeps this file and the
 * handlers in step. Pure TypeScript: no Nest, no I/O.
 *
 * Reads answer with the read models' shapes, which libs/projections defines (the domain may not
 * import it): the contract names the fields it promises (IpamViews) and an implementation binds
 * the full shapes (`Ipam<ItsViews>`), checked against these.
 */
import type { AllocateIpInput } from './commands/allocate-ip.command';
import type { ClaimSpec } from './commands/put-claim.command';
import type { PodAddress, RunningPod } from './commands/adopt-pod-ips.command';
import type { StatefulSetSpec } from './commands/reconcile-statefulset.command';
import type { UpdatePoolCommand } from './commands/update-pool.command';
import type { NodeRestriction } from './allocation/node-restriction';
import type { AllocationOwner } from './allocation/allocation-owner';
import type { CommandMetadata } from './command-metadata';
import type { DomainError, DomainErrorCode } from './errors/domain-error';
import type { ReleaseCondition } from './events';
import type { IpSetKind, IpSetRef } from './ip-set/ip-set';
import type { Labels } from './labels';
import type { PoolSpecInput } from './pool/pool-spec';
import type { SelectionInput } from './selection/selection-rule';
import type { Reservation } from './statefulset/statefulset.aggregate';

/** A refusal of one of the codes `C`: a DomainError (InvalidInputError for the INVALID_* codes), mapped to HTTP in apps/api/src/http/error-mapping.ts. */
export type Refusal<C extends DomainErrorCode> = DomainError & { readonly code: C };

/** Who asks: the audit metadata of the events a command appends, and the node a credential is bound to (null: bound to none). */
export interface IpamCaller {
  metadata: CommandMetadata;
  restriction?: NodeRestriction | null;
  /** the cluster the call acts in (its nodes and handles); default: the default cluster. An allocation names its own (AllocateIpInput.cluster). */
  cluster?: string;
}

/** A page of a list, and the token of the next (null: the last page). */
export interface IpamPage<T> {
  items: T[];
  continue: string | null;
}

/** Paging of a list: at most `limit` items after the page `continue` names. */
export interface IpamPaging {
  limit: number;
  continue?: string;
}

/** The fields of each read model the contract promises; libs/projections' views carry more. */
export interface IpamViews {
  /** an address a handle holds, one per family */
  allocation: {
    handle: string;
    /** the cluster of the handle and node */
    cluster: string;
    ip: string;
    pool: string;
    node: string;
    namespace: string;
    pod: string;
    owner: AllocationOwner;
    family: 4 | 6;
  };
  pool: { name: string; cidr: string; labels: Labels; nodeSelector: string | null; disabled: boolean; free: string; version: number };
  node: { name: string; cluster: string; labels: Labels; version: number };
  /** a member of the fleet: the scope of its nodes, handles, StatefulSets and ip-sets */
  cluster: { name: string; labels: Labels; version: number; createdAt: string };
  /** a stable identity owning addresses across the pods (references) that carry it */
  claim: {
    name: string;
    cluster: string;
    network: string | null;
    persistent: boolean;
    items: IpamViews['allocation'][];
    references: Array<{ cluster: string; handle: string; namespace: string; pod: string; since: string }>;
    createdAt: string;
  };
  /** a claimed block: what a route controller announces towards its node */
  block: { cidr: string; pool: string; node: string; used: number; borrowed: number };
  /** a StatefulSet's continuous range */
  reservation: Reservation & { version: number };
  ipSet: { namespace: string; kind: IpSetKind; name: string; pool: string; range: { start: string; end: string }; held: number };
  /** the pools a node may use (`items`), and with `explain`, why the others are left out */
  nodePools: { items: Array<{ name: string }> };
  /** one allocation, release or reservation of an address, or a claim's reference taken or dropped on it */
  ipHistoryItem: {
    type: 'IpAllocated' | 'IpReleased' | 'RangeReserved' | 'ClaimReferenceAdded' | 'ClaimReferenceDropped';
    pool: string;
    at: string;
  };
  /** a page of a pool's own events, oldest first; `next` is the cursor of the following page */
  poolHistory: { items: Array<{ type: string }>; next: string | null };
  /** the allocations compared with the last complete pod sync */
  checkReport: { checkedAt: string; problems: unknown[] };
}

/** What an allocation gives: one address per family, IPv4 first; `created` false when the handle already held them (a retried CNI ADD). */
export interface AllocateResult<V extends IpamViews = IpamViews> {
  created: boolean;
  items: V['allocation'][];
}

/** Everything that changes what is allocated. Each is idempotent where its REST route says so; any may also end in CONCURRENCY_CONFLICT. */
export interface IpamCommands<V extends IpamViews = IpamViews> {
  /**
   * Addresses for a handle, from the pools its rule (request, pod or namespace annotations) makes eligible on its node; a StatefulSet pod's ordinal address, a workload's ip-set.
   * With `claim`: the claim's addresses (new ones for a claim holding none, `created`), the handle one of its at most two live references. Refusals: IpamRefusals['allocate'].
   */
  allocate(input: AllocateIpInput, caller: IpamCaller): Promise<AllocateResult<V>>;
  /**
   * Releases every address a handle holds (CNI DEL); `condition` releases only what still matches it. A claim's reference is dropped, and a
   * transient claim's addresses released with its last one. Refusals: IpamRefusals['release'].
   */
  release(handle: string, caller: IpamCaller, condition?: ReleaseCondition): Promise<void>;
  /** Creates pools, all or none. Refusals: IpamRefusals['createPools']. */
  createPools(inputs: PoolSpecInput[], caller: IpamCaller): Promise<void>;
  /** A merge patch of a pool (labels, selector, disabled, reuse delay, special ranges, CIDR in place). Refusals: IpamRefusals['updatePool']. */
  updatePool(name: string, patch: UpdatePoolCommand['patch'], caller: IpamCaller): Promise<void>;
  /** Deletes a pool that holds nothing. Refusals: IpamRefusals['deletePool']. */
  deletePool(name: string, caller: IpamCaller): Promise<void>;
  /** Creates or replaces a node's labels. Refusals: IpamRefusals['setNodeLabels']. */
  setNodeLabels(name: string, labels: Labels, caller: IpamCaller): Promise<void>;
  /** Deletes a node. Refusals: IpamRefusals['deleteNode']. */
  deleteNode(name: string, caller: IpamCaller): Promise<void>;
  /** Creates a cluster or replaces its labels. Refusals: IpamRefusals['setClusterLabels']. */
  setClusterLabels(name: string, labels: Labels, caller: IpamCaller): Promise<void>;
  /** Deletes a cluster that holds nothing (never `default`). Refusals: IpamRefusals['deleteCluster']. */
  deleteCluster(name: string, caller: IpamCaller): Promise<void>;
  /** Reserves (or rescales) a StatefulSet's continuous range: level-triggered. Refusals: IpamRefusals['reconcileStatefulSet']. */
  reconcileStatefulSet(spec: StatefulSetSpec, caller: IpamCaller): Promise<void>;
  /** Releases a StatefulSet's range and every address its pods hold. Refusals: IpamRefusals['deleteStatefulSet']. */
  deleteStatefulSet(namespace: string, name: string, caller: IpamCaller): Promise<void>;
  /** Creates a persistent claim (or makes an allocation's transient one persistent): it keeps its addresses without references. Refusals: IpamRefusals['putClaim']. */
  putClaim(name: string, spec: ClaimSpec, caller: IpamCaller): Promise<void>;
  /** Deletes a claim: its references are dropped and its addresses released. Refusals: IpamRefusals['deleteClaim']. */
  deleteClaim(name: string, caller: IpamCaller): Promise<void>;
  /**
   * A workload was deleted: releases its ip-set and (`tombstone`) records its deletion (`uid`), so
   * that no pod reserves a new set for it. True when it changed anything. Refusals: IpamRefusals['releaseIpSet'].
   */
  releaseIpSet(ref: IpSetRef, uid: string, tombstone: boolean, caller: IpamCaller): Promise<boolean>;
  /**
   * A running pod's addresses from the IPAM the cluster used before become its own (`adopted: true`),
   * all or none, never one another handle holds. True when it appended anything (false: adopted
   * before). Refusals: IpamRefusals['adoptPodIps'].
   */
  adoptPodIps(pod: RunningPod, addresses: readonly PodAddress[], caller: IpamCaller): Promise<boolean>;
}

/** The questions the read models (and, for history and an instant `at`, the log) answer. */
export interface IpamReads<V extends IpamViews = IpamViews> {
  /** What a handle holds. Refusals: IpamRefusals['getAllocations']. */
  getAllocations(handle: string): Promise<V['allocation'][]>;
  /** Allocations, filtered; with `at`, as they were then (needs `pool`: the past is replayed a pool at a time). Refusals: IpamRefusals['listAllocations']. */
  listAllocations(
    query: { pool?: string; node?: string; namespace?: string; pod?: string; network?: string; at?: Date } & IpamPaging,
  ): Promise<IpamPage<V['allocation']>>;
  /** A pool, now or at an instant. Refusals: IpamRefusals['getPool']. */
  getPool(name: string, at?: Date): Promise<V['pool']>;
  /** Pools, by label selector or by the node whose labels their nodeSelector matches. Refusals: IpamRefusals['listPools']. */
  listPools(query: { labelSelector?: string; node?: string } & IpamPaging): Promise<IpamPage<V['pool']>>;
  /** A pool's claimed blocks, now or at an instant. Refusals: IpamRefusals['poolBlocks']. */
  poolBlocks(pool: string, query: { at?: Date } & IpamPaging): Promise<IpamPage<V['block']>>;
  /** The blocks a node claimed in every pool, now or at an instant. Refusals: IpamRefusals['nodeBlocks']. */
  nodeBlocks(node: string, query: { at?: Date } & IpamPaging): Promise<IpamPage<V['block']>>;
  /** A node. Refusals: IpamRefusals['getNode']. */
  getNode(name: string): Promise<V['node']>;
  /** The pools a node may use under a rule (or a pod's or namespace's annotations), and with `explain`, why others are not. Refusals: IpamRefusals['nodePools']. */
  nodePools(
    node: string,
    query: SelectionInput & { namespace?: string; pod?: string; network?: string; pool?: string; families?: (4 | 6)[]; explain?: boolean },
  ): Promise<V['nodePools']>;
  /** A cluster (`default` always). Refusals: IpamRefusals['getCluster']. */
  getCluster(name: string): Promise<V['cluster']>;
  /** The clusters, by name. Refusals: IpamRefusals['listClusters']. */
  listClusters(query: IpamPaging): Promise<IpamPage<V['cluster']>>;
  /** A claim with its addresses and live references. Refusals: IpamRefusals['getClaim']. */
  getClaim(name: string): Promise<V['claim']>;
  /** The claims, by name. Refusals: IpamRefusals['listClaims']. */
  listClaims(query: IpamPaging): Promise<IpamPage<V['claim']>>;
  /** A StatefulSet's reservation. Refusals: IpamRefusals['getStatefulSet']. */
  getStatefulSet(namespace: string, name: string): Promise<V['reservation']>;
  /** The ip-sets of Deployments and ReplicaSets. Refusals: IpamRefusals['listIpSets']. */
  listIpSets(query: { namespace?: string } & IpamPaging): Promise<IpamPage<V['ipSet']>>;
  /** A workload's ip-set. Refusals: IpamRefusals['getIpSet']. */
  getIpSet(ref: IpSetRef): Promise<V['ipSet']>;
  /** Every allocation, release and reservation of an address, oldest first. Refusals: IpamRefusals['ipHistory']. */
  ipHistory(ip: string): Promise<V['ipHistoryItem'][]>;
  /** A pool's own events after version `after`, oldest first. Refusals: IpamRefusals['poolHistory']. */
  poolHistory(pool: string, query: { after?: number; limit: number }): Promise<V['poolHistory']>;
  /** The allocations compared with the last complete pod sync, each problem with its evidence. Refusals: IpamRefusals['check']. */
  check(): Promise<V['checkReport']>;
}

/** The whole contract. */
export interface Ipam<V extends IpamViews = IpamViews> extends IpamCommands<V>, IpamReads<V> {}

type InvalidCode = Extract<DomainErrorCode, `INVALID_${string}`>;

/** Every method of Ipam must list its refusals, and each must be a DomainErrorCode: a method added without them does not compile. */
type RefusalsOf<T extends Record<keyof Ipam, DomainErrorCode>> = T;

/**
 * The codes each use case may refuse with (beyond CONCURRENCY_CONFLICT, which any command may end
 * in and its caller answers by deciding again). Every INVALID_* code is a 400 that changes nothing.
 */
export type IpamRefusals = RefusalsOf<{
  allocate:
    | InvalidCode
    | 'POOL_EXHAUSTED'
    | 'POOL_DISABLED'
    | 'IP_IN_USE'
    | 'IP_RESERVED'
    | 'IP_NOT_IN_POOL'
    | 'NO_ELIGIBLE_POOL'
    | 'POD_NOT_SEEN'
    | 'NODE_FORBIDDEN'
    | 'IP_SET_FULL'
    | 'IP_SET_NOT_RESERVED'
    | 'IP_SET_WORKLOAD_DELETED'
    | 'CLAIM_REFERENCES_FULL';
  release: InvalidCode | 'NODE_FORBIDDEN';
  putClaim: InvalidCode;
  deleteClaim: InvalidCode | 'CLAIM_NOT_FOUND';
  createPools: InvalidCode | 'POOL_EXISTS' | 'POOL_OVERLAP' | 'SPECIAL_RANGE';
  updatePool: InvalidCode | 'POOL_NOT_FOUND' | 'CIDR_NOT_NESTED' | 'POOL_OVERLAP' | 'POOL_IN_USE' | 'SPECIAL_RANGE';
  deletePool: 'POOL_NOT_FOUND' | 'POOL_IN_USE';
  setNodeLabels: 'INVALID_LABEL' | 'INVALID_NAME';
  deleteNode: 'NODE_NOT_FOUND';
  setClusterLabels: 'INVALID_LABEL' | 'INVALID_NAME';
  deleteCluster: 'INVALID_NAME' | 'CLUSTER_NOT_FOUND' | 'CLUSTER_IN_USE';
  reconcileStatefulSet: InvalidCode | 'NO_ELIGIBLE_POOL';
  deleteStatefulSet: 'STATEFULSET_NOT_FOUND';
  releaseIpSet: never;
  adoptPodIps: 'POOL_NOT_FOUND' | 'IP_IN_USE' | 'IP_RESERVED' | 'IP_NOT_IN_POOL';
  getAllocations: 'ALLOCATION_NOT_FOUND';
  listAllocations: 'INVALID_ARGUMENT';
  getPool: 'POOL_NOT_FOUND';
  listPools: 'INVALID_SELECTOR' | 'NODE_NOT_FOUND';
  poolBlocks: 'INVALID_ARGUMENT' | 'POOL_NOT_FOUND';
  nodeBlocks: 'INVALID_ARGUMENT';
  getNode: 'NODE_NOT_FOUND';
  getCluster: 'INVALID_NAME' | 'CLUSTER_NOT_FOUND';
  listClusters: 'INVALID_ARGUMENT';
  nodePools: InvalidCode | 'NODE_NOT_FOUND' | 'POOL_NOT_FOUND';
  getClaim: 'INVALID_NAME' | 'CLAIM_NOT_FOUND';
  listClaims: 'INVALID_ARGUMENT';
  getStatefulSet: 'STATEFULSET_NOT_FOUND';
  listIpSets: 'INVALID_ARGUMENT';
  getIpSet: 'IP_SET_NOT_FOUND';
  ipHistory: 'INVALID_IP';
  poolHistory: 'POOL_NOT_FOUND';
  check: never;
}>;

/** The refusal a use case may throw, typed: IpamRefusal<'allocate'> is a DomainError whose code is one of allocate's. */
export type IpamRefusal<M extends keyof Ipam> = Refusal<IpamRefusals[M]>;
