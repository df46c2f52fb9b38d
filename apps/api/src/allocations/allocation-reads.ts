import { Inject, Injectable } from '@nestjs/common';
import {
  findAllocationStarts,
  findNodes,
  findPoolsByName,
  type AllocationStart,
  type AllocationStartKey,
  type ByNameReads,
  type NodeView,
  type PoolView,
} from '@ipledger/projections';
import type { Pool } from 'pg';
import { ReadBatcher } from '../infrastructure/read-batcher';
import { PG_POOL } from '../infrastructure/tokens';

/**
 * The reads of the allocation hot path, batched across requests (see ReadBatcher): what a handle
 * holds with its pod's StatefulSet, and the node and named pools of the eligibility check.
 */
@Injectable()
export class AllocationReads implements ByNameReads {
  private readonly starts: ReadBatcher<AllocationStartKey, AllocationStart>;
  private readonly nodes: ReadBatcher<string, NodeView | null>;
  private readonly named: ReadBatcher<readonly string[], PoolView[]>;

  constructor(@Inject(PG_POOL) db: Pool) {
    this.starts = new ReadBatcher((keys) => findAllocationStarts(db, keys));
    this.nodes = new ReadBatcher((names) => findNodes(db, names));
    this.named = new ReadBatcher(async (lists) => {
      const byName = new Map((await findPoolsByName(db, [...new Set(lists.flat())])).map((pool) => [pool.name, pool]));
      return lists.map((names) => names.flatMap((name) => byName.get(name) ?? []));
    });
  }

  start(key: AllocationStartKey): Promise<AllocationStart> {
    return this.starts.read(key);
  }

  node(name: string): Promise<NodeView | null> {
    return this.nodes.read(name);
  }

  pools(names: readonly string[]): Promise<PoolView[]> {
    return this.named.read(names);
  }
}
