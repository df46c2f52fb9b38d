import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { CreatePoolCommand, decideCreatePool, DomainError, parsePoolSpec, PoolAggregate } from '@ipledger/domain';
import { findOverlappingPools } from '@ipledger/projections';
import type { Pool } from 'pg';
import { EventWriter } from '../infrastructure/event-writer';
import { retryOnConflict } from '../infrastructure/retry-on-conflict';
import { PG_POOL } from '../infrastructure/tokens';

@CommandHandler(CreatePoolCommand)
export class CreatePoolHandler implements ICommandHandler<CreatePoolCommand, void> {
  constructor(
    private readonly writer: EventWriter,
    @Inject(PG_POOL) private readonly pool: Pool,
  ) {}

  async execute({ input, metadata }: CreatePoolCommand): Promise<void> {
    const spec = parsePoolSpec(input);
    await retryOnConflict(async () => {
      const loaded = await this.writer.load(PoolAggregate, spec.name);
      const event = decideCreatePool(loaded.state, spec);
      await this.refuseOverlap(spec.name, spec.cidr);
      try {
        await this.writer.append([{ type: PoolAggregate, loaded, events: [event] }], metadata);
      } catch (err) {
        // the exclusion constraint on pools caught a pool created concurrently by another replica
        if ((err as { code?: string }).code === '23P01') await this.refuseOverlap(spec.name, spec.cidr);
        throw err;
      }
    });
  }

  private async refuseOverlap(name: string, cidr: string): Promise<void> {
    const [other] = await findOverlappingPools(this.pool, cidr);
    if (other) {
      throw new DomainError('POOL_OVERLAP', `pool "${name}" (${cidr}) overlaps pool "${other.name}" (${other.cidr})`);
    }
  }
}
