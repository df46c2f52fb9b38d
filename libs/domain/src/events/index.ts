import type { BlockClaimed } from './block-claimed.event';
import type { BlockReleased } from './block-released.event';
import type { ClaimCreated } from './claim-created.event';
import type { ClaimDeleted } from './claim-deleted.event';
import type { ClaimPersisted } from './claim-persisted.event';
import type { ClaimAddress, ClaimReferenceData } from './claim-reference';
import type { ClaimReferenceAdded } from './claim-reference-added.event';
import type { ClaimReferenceDropped } from './claim-reference-dropped.event';
import type { ClusterDeleted } from './cluster-deleted.event';
import type { ClusterLabelsSet } from './cluster-labels-set.event';
import type { IpAllocated, StatefulSetRef } from './ip-allocated.event';
import type { IpReleased } from './ip-released.event';
import type { IpSetReserved } from './ip-set-reserved.event';
import type { IpSetWorkloadDeleted } from './ip-set-workload-deleted.event';
import type { NodeDeleted } from './node-deleted.event';
import type { NodeLabelsSet } from './node-labels-set.event';
import type { PoolCreated } from './pool-created.event';
import type { PoolDeleted } from './pool-deleted.event';
import type { PoolResized } from './pool-resized.event';
import type { PoolUpdated } from './pool-updated.event';
import type { RangeReleased } from './range-released.event';
import type { RangeReserved } from './range-reserved.event';
import type { StatefulSetDeleted } from './statefulset-deleted.event';
import type { StatefulSetReconciled } from './statefulset-reconciled.event';
import type { ReleaseCondition, ReleaseReason } from './release-reason';

export type {
  BlockClaimed,
  BlockReleased,
  ClaimAddress,
  ClaimCreated,
  ClaimDeleted,
  ClaimPersisted,
  ClaimReferenceAdded,
  ClaimReferenceData,
  ClaimReferenceDropped,
  ClusterDeleted,
  ClusterLabelsSet,
  IpAllocated,
  IpReleased,
  IpSetReserved,
  IpSetWorkloadDeleted,
  NodeDeleted,
  NodeLabelsSet,
  PoolCreated,
  PoolDeleted,
  PoolResized,
  PoolUpdated,
  RangeReleased,
  RangeReserved,
  ReleaseCondition,
  ReleaseReason,
  StatefulSetDeleted,
  StatefulSetReconciled,
  StatefulSetRef,
};

export type PoolEvent =
  | PoolCreated
  | PoolUpdated
  | PoolResized
  | PoolDeleted
  | IpAllocated
  | IpReleased
  | RangeReserved
  | RangeReleased
  | BlockClaimed
  | BlockReleased;
export type NodeEvent = NodeLabelsSet | NodeDeleted;
export type StatefulSetEvent = StatefulSetReconciled | StatefulSetDeleted;
export type IpSetEvent = IpSetReserved | IpSetWorkloadDeleted;
export type ClusterEvent = ClusterLabelsSet | ClusterDeleted;
export type ClaimEvent = ClaimCreated | ClaimPersisted | ClaimReferenceAdded | ClaimReferenceDropped | ClaimDeleted;
export type DomainEvent = PoolEvent | NodeEvent | StatefulSetEvent | IpSetEvent | ClusterEvent | ClaimEvent;
