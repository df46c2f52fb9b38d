import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CreatePoolsCommand, decideCreatePool, DomainError, firstOverlap, parsePoolSpec, PoolAggregate } from '@ipledger/domain';
import type { Pool } from 'pg';
import { EventWriter } from '../infrastructure/event-writer';
import { attempts } from '../infrastructure/unit-of-work';
import { PG_POOL } from '../infrastructure/tokens';
import { isOverlap, overlapError, refuseOverlapWithExisting } from './overlap-refusal';

/**
 * Creates pools all or none. Overlap with existing pools is decided by the exclusion constraint on
 * the pools read model, inside the append transaction, so two replicas creating overlapping pools
 * at the same instant cannot both succeed.
 */
@CommandHandler(CreatePoolsCommand)
export class CreatePoolsHandler implements ICommandHandler<CreatePoolsCommand, void> {
  constructor(
    private readonly writer: EventWriter,
    @Inject(PG_POOL) private readonly db: Pool,
  ) {}

  async execute({ inputs, metadata, unit }: CreatePoolsCommand): Promise<void> {
    const specs = inputs.map(parsePoolSpec);
    const names = new Set<string>();
    for (const { name } of specs) {
      if (names.has(name)) throw new DomainError('POOL_EXISTS', `pool "${name}" is given twice`);
      names.add(name);
    }
    const overlap = firstOverlap(specs);
    if (overlap) throw overlapError(overlap[0], overlap[1]);
    await attempts(unit, async (attempt) => {
      // first assume every name is new (no reads); a name with history shows up as a conflict
      const loaded =
        attempt === 1
          ? specs.map((spec) => this.writer.repository.assumeNew(PoolAggregate, spec.name))
          : await Promise.all(specs.map((spec) => this.writer.load(PoolAggregate, spec.name, unit)));
      const changes = specs.map((spec, i) => ({
        type: PoolAggregate,
        loaded: loaded[i],
        events: [decideCreatePool(loaded[i].state, spec)],
      }));
      try {
        await this.writer.append(unit, changes, metadata);
      } catch (err) {
        if (isOverlap(err)) await refuseOverlapWithExisting(this.db, specs);
        throw err;
      }
    });
  }
}
