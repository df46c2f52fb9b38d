import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  canonicalSelector,
  cidrArgument,
  decideResizePool,
  decideUpdatePool,
  PoolAggregate,
  UpdatePoolCommand,
  validateLabels,
  validReuseDelay,
  type PoolEvent,
} from '@ipledger/domain';
import { formatCidr } from '@ipledger/ip';
import type { Pool } from 'pg';
import { EventWriter } from '../infrastructure/event-writer';
import { attempts } from '../infrastructure/unit-of-work';
import { PG_POOL } from '../infrastructure/tokens';
import { isOverlap, refuseOverlapWithExisting } from './overlap-refusal';

/**
 * A merge patch of a pool: its settings and its CIDR, decided on one state and appended together,
 * all or none. A grow into another pool is refused by the pools read model's exclusion constraint
 * inside the append, as a create is, so two replicas growing two pools into each other cannot both
 * succeed.
 */
@CommandHandler(UpdatePoolCommand)
export class UpdatePoolHandler implements ICommandHandler<UpdatePoolCommand, void> {
  constructor(
    private readonly writer: EventWriter,
    @Inject(PG_POOL) private readonly db: Pool,
  ) {}

  async execute({ name, patch, metadata, unit }: UpdatePoolCommand): Promise<void> {
    const valid = {
      labels: patch.labels === undefined ? undefined : validateLabels(patch.labels),
      nodeSelector: patch.nodeSelector === undefined ? undefined : canonicalSelector(patch.nodeSelector),
      clusterSelector: patch.clusterSelector === undefined ? undefined : canonicalSelector(patch.clusterSelector),
      disabled: patch.disabled,
      reuseDelaySeconds: patch.reuseDelaySeconds === undefined ? undefined : validReuseDelay(patch.reuseDelaySeconds),
      allowSpecialRanges: patch.allowSpecialRanges,
    };
    const cidr = patch.cidr === undefined ? undefined : cidrArgument(patch.cidr);
    await attempts(unit, async () => {
      const loaded = await this.writer.load(PoolAggregate, name, unit);
      const decided: Array<PoolEvent | null> = [
        decideUpdatePool(loaded.state, name, valid),
        cidr ? decideResizePool(loaded.state, name, cidr, valid.allowSpecialRanges) : null,
      ];
      const events = decided.filter((event): event is PoolEvent => event !== null);
      if (events.length === 0) return;
      try {
        await this.writer.append(unit, [{ type: PoolAggregate, loaded, events }], metadata);
      } catch (err) {
        if (cidr && isOverlap(err)) {
          await refuseOverlapWithExisting(this.db, [{ name, cidr: formatCidr(cidr), network: loaded.state.network }]);
        }
        throw err;
      }
    });
  }
}
