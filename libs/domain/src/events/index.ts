import type { IpAllocated } from './ip-allocated.event';
import type { IpReleased } from './ip-released.event';
import type { NodeDeleted } from './node-deleted.event';
import type { NodeLabelsSet } from './node-labels-set.event';
import type { PoolCreated } from './pool-created.event';
import type { PoolDeleted } from './pool-deleted.event';
import type { PoolUpdated } from './pool-updated.event';

export type { IpAllocated, IpReleased, NodeDeleted, NodeLabelsSet, PoolCreated, PoolDeleted, PoolUpdated };

export type PoolEvent = PoolCreated | PoolUpdated | PoolDeleted | IpAllocated | IpReleased;
export type NodeEvent = NodeLabelsSet | NodeDeleted;
export type DomainEvent = PoolEvent | NodeEvent;
