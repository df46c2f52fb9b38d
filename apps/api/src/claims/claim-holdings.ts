import { Inject, Injectable } from '@nestjs/common';
import {
  ClaimAggregate,
  claimHolding,
  decideRelease,
  PoolAggregate,
  type ClaimAddress,
  type ClaimState,
  type CommandMetadata,
  type DomainEvent,
  type UnitOfWork,
} from '@ipledger/domain';
import type { Loaded } from '@ipledger/event-store';
import { findAllocationsByHandles } from '@ipledger/projections';
import type { Pool } from 'pg';
import { EventWriter, type Change } from '../infrastructure/event-writer';
import { KeyedMutex } from '../infrastructure/keyed-mutex';
import { PG_POOL } from '../infrastructure/tokens';

/**
 * A claim's addresses, held in the pools under its holding handle, and the append of a claim's
 * events: a claim that ends (ClaimDeleted) releases them in the same transaction, so no address
 * outlives its claim and none is freed while the claim stands.
 */
@Injectable()
export class ClaimHoldings {
  constructor(
    private readonly writer: EventWriter,
    private readonly mutex: KeyedMutex,
    @Inject(PG_POOL) private readonly db: Pool,
  ) {}

  async addresses(name: string): Promise<ClaimAddress[]> {
    return (await findAllocationsByHandles(this.db, [claimHolding(name)])).map(({ ip, pool }) => ({ ip, pool }));
  }

  /** The claim's events, with the release of its addresses when it ends; pools locked as a release locks them. */
  async append(
    claim: Loaded<ClaimState>,
    name: string,
    events: DomainEvent[],
    addresses: ClaimAddress[],
    metadata: CommandMetadata,
    unit: UnitOfWork,
  ) {
    const changes: Change[] = [];
    const unlocks: Array<() => void> = [];
    try {
      if (events.some((event) => event.type === 'ClaimDeleted')) {
        for (const pool of [...new Set(addresses.map((a) => a.pool))].sort()) {
          unlocks.push(await this.mutex.lockPool(pool));
          const loaded = await this.writer.load(PoolAggregate, pool, unit);
          const released = decideRelease(loaded.state, claimHolding(name), {}, claim.state.cluster);
          changes.push({ type: PoolAggregate, loaded, events: released ? [released] : [] });
        }
      }
      changes.push({ type: ClaimAggregate, loaded: claim, events });
      await this.writer.append(unit, changes, metadata);
    } finally {
      unlocks.forEach((unlock) => unlock());
    }
  }
}
