import { Inject, Injectable } from '@nestjs/common';
import { findAllocationStarts, type AllocationStart, type AllocationStartKey } from '@ipledger/projections';
import type { Pool } from 'pg';
import { ReadBatcher } from '../infrastructure/read-batcher';
import { PG_POOL } from '../infrastructure/tokens';

/**
 * The read of the allocation hot path, batched across requests (see ReadBatcher): what a handle
 * holds, its pod's StatefulSet, and the node and named pools of the eligibility check, all in
 * one statement.
 */
@Injectable()
export class AllocationReads {
  private readonly starts: ReadBatcher<AllocationStartKey, AllocationStart>;

  constructor(@Inject(PG_POOL) db: Pool) {
    this.starts = new ReadBatcher((keys) => findAllocationStarts(db, keys));
  }

  start(key: AllocationStartKey): Promise<AllocationStart> {
    return this.starts.read(key);
  }
}
