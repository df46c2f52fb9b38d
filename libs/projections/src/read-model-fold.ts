import { clusterOf, rangeOwner, referenceKey, statefulSetId, unknownEvent, upcast, type DomainEvent } from '@ipledger/domain';
import type { RecordedEvent } from '@ipledger/event-store';
import { claimReferenceRow, claimRow, type ClaimReferenceRow, type ClaimRow } from './claim.projection';
import { clusterRow, type ClusterRow } from './cluster.projection';
import { nodeKey, nodeRow, type NodeRow } from './node.projection';
import {
  poolBlockRow,
  poolCreatedRow,
  poolRangeRow,
  poolResizedColumns,
  type PoolBlockRow,
  type PoolRangeRow,
  type PoolRow,
} from './pool.projection';
import type { ReadModelTable } from './read-models';
import { statefulSetRow, type StatefulSetRow } from './statefulset.projection';

export type FoldedEvent = Pick<RecordedEvent, 'type' | 'schemaVersion' | 'data' | 'version' | 'recordedAt'>;

/**
 * Every read model but allocations (batchProject derives those in SQL) folded in memory from the
 * events other than IpAllocated and IpReleased, in log order: what projectEvents leaves in the
 * tables, statement for statement, one row object a key, built by the same row functions.
 */
export class ReadModelFold {
  readonly pools = new Map<string, PoolRow>();
  /** by pool, then rangeOwner: a pool's deletion drops its ranges, as ON DELETE CASCADE does */
  private readonly ranges = new Map<string, Map<string, PoolRangeRow>>();
  /** by pool, then cidr, dropped with the pool likewise */
  private readonly blocks = new Map<string, Map<string, PoolBlockRow>>();
  private readonly nodes = new Map<string, NodeRow>();
  private readonly statefulSets = new Map<string, StatefulSetRow>();
  private readonly clusters = new Map<string, ClusterRow>();
  private readonly claims = new Map<string, ClaimRow>();
  /** by referenceKey (cluster and handle) */
  private readonly claimReferences = new Map<string, ClaimReferenceRow>();

  apply(recorded: FoldedEvent): void {
    const event = upcast(recorded);
    const e = { type: event.type, data: event.data } as DomainEvent;
    switch (e.type) {
      case 'PoolCreated':
        this.pools.set(e.data.name, poolCreatedRow(event));
        return;
      case 'PoolUpdated': {
        const row = this.touch(e.data.name, event);
        if (!row) return;
        // the inline UPDATE's coalesce and CASE, field by field
        if (e.data.labels != null) row.labels = e.data.labels;
        if (e.data.nodeSelector !== undefined) row.node_selector = e.data.nodeSelector ?? null;
        if (e.data.clusterSelector !== undefined) row.cluster_selector = e.data.clusterSelector ?? null;
        if (e.data.disabled != null) row.disabled = e.data.disabled;
        if (e.data.reuseDelaySeconds != null) row.reuse_delay_seconds = e.data.reuseDelaySeconds;
        if (e.data.allowSpecialRanges != null) row.allow_special_ranges = e.data.allowSpecialRanges;
        return;
      }
      case 'PoolResized': {
        const row = this.touch(e.data.name, event);
        if (row) Object.assign(row, poolResizedColumns(row, e.data.cidr));
        return;
      }
      case 'PoolDeleted':
        this.pools.delete(e.data.name);
        this.ranges.delete(e.data.name);
        this.blocks.delete(e.data.name);
        return;
      case 'RangeReserved': {
        const ranges = this.ranges.get(e.data.pool) ?? new Map<string, PoolRangeRow>();
        this.ranges.set(e.data.pool, ranges.set(rangeOwner(clusterOf(e.data), e.data.namespace, e.data.name), poolRangeRow(event)));
        this.touch(e.data.pool, event);
        return;
      }
      case 'RangeReleased':
        this.ranges.get(e.data.pool)?.delete(rangeOwner(clusterOf(e.data), e.data.namespace, e.data.name));
        this.touch(e.data.pool, event);
        return;
      case 'BlockClaimed': {
        const blocks = this.blocks.get(e.data.pool) ?? new Map<string, PoolBlockRow>();
        this.blocks.set(e.data.pool, blocks.set(e.data.cidr, poolBlockRow(event)));
        this.touch(e.data.pool, event);
        return;
      }
      case 'BlockReleased':
        this.blocks.get(e.data.pool)?.delete(e.data.cidr);
        this.touch(e.data.pool, event);
        return;
      case 'NodeLabelsSet':
        this.nodes.set(nodeKey(e.data), nodeRow(event));
        return;
      case 'NodeDeleted':
        this.nodes.delete(nodeKey(e.data));
        return;
      case 'StatefulSetReconciled':
        this.statefulSets.set(statefulSetId(clusterOf(e.data), e.data.namespace, e.data.name), statefulSetRow(event));
        return;
      case 'StatefulSetDeleted':
        this.statefulSets.delete(statefulSetId(clusterOf(e.data), e.data.namespace, e.data.name));
        return;
      case 'ClusterLabelsSet':
        this.clusters.set(e.data.name, clusterRow(event, this.clusters.get(e.data.name)));
        return;
      case 'ClusterDeleted':
        this.clusters.delete(e.data.name);
        return;
      case 'ClaimCreated':
        this.claims.set(e.data.name, claimRow(event));
        return;
      case 'ClaimPersisted':
        this.touchClaim(e.data.name, event, null, true);
        return;
      case 'ClaimReferenceAdded':
        this.touchClaim(e.data.name, event, e.data.network ?? null, false);
        this.claimReferences.set(referenceKey(e.data), claimReferenceRow(event));
        return;
      case 'ClaimReferenceDropped':
        this.touchClaim(e.data.name, event, null, false);
        this.claimReferences.delete(referenceKey(e.data));
        return;
      case 'ClaimDeleted':
        this.claims.delete(e.data.name);
        for (const [key, reference] of this.claimReferences) if (reference.claim === e.data.name) this.claimReferences.delete(key);
        return;
      case 'IpAllocated':
      case 'IpReleased':
        // batchProject derives allocations and their counts in SQL
        return;
      case 'IpSetReserved':
      case 'IpSetWorkloadDeleted':
        // no read model follows them (the pool's RangeReserved is the set's row)
        return;
      default:
        return unknownEvent(e);
    }
  }

  /** Every pool event moves the pool's version and updated_at; a missing pool is left alone, as an UPDATE would. */
  private touch(pool: string, event: FoldedEvent): PoolRow | undefined {
    const row = this.pools.get(pool);
    if (row) {
      row.version = event.version;
      row.updated_at = event.recordedAt;
    }
    return row;
  }

  /** claim.projection.ts's TOUCH, on the folded row */
  private touchClaim(name: string, event: FoldedEvent, network: string | null, persistent: boolean): void {
    const row = this.claims.get(name);
    if (!row) return;
    row.version = event.version;
    row.updated_at = event.recordedAt;
    row.network ??= network;
    row.persistent ||= persistent;
  }

  *rows(table: Exclude<ReadModelTable, 'allocations'>): Iterable<object> {
    switch (table) {
      case 'pools':
        return yield* this.pools.values();
      case 'pool_labels':
        for (const pool of this.pools.values())
          for (const [key, value] of Object.entries(pool.labels)) yield { key, value, pool: pool.name };
        return;
      case 'pool_ranges':
        for (const ranges of this.ranges.values()) yield* ranges.values();
        return;
      case 'pool_blocks':
        for (const blocks of this.blocks.values()) yield* blocks.values();
        return;
      case 'nodes':
        return yield* this.nodes.values();
      case 'statefulsets':
        return yield* this.statefulSets.values();
      case 'clusters':
        return yield* this.clusters.values();
      case 'claims':
        return yield* this.claims.values();
      case 'claim_references':
        return yield* this.claimReferences.values();
    }
  }
}
