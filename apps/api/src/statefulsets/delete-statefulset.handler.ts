import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  decideDeleteStatefulSet,
  decideRelease,
  decideReleaseRange,
  DeleteStatefulSetCommand,
  PoolAggregate,
  StatefulSetAggregate,
  statefulSetId,
  type DomainEvent,
} from '@ipledger/domain';
import { findStatefulSetHandles } from '@ipledger/projections';
import type { Pool } from 'pg';
import { EventWriter, type Change } from '../infrastructure/event-writer';
import { attempts } from '../infrastructure/unit-of-work';
import { PG_POOL } from '../infrastructure/tokens';

/**
 * Deletion releases everything in one transaction: the range, and every address the StatefulSet's
 * pods hold in any pool (dynamic ones included). Nothing is left behind for a later PUT of the
 * same name, which starts afresh.
 */
@CommandHandler(DeleteStatefulSetCommand)
export class DeleteStatefulSetHandler implements ICommandHandler<DeleteStatefulSetCommand, void> {
  constructor(
    private readonly writer: EventWriter,
    @Inject(PG_POOL) private readonly db: Pool,
  ) {}

  async execute({ namespace, name, metadata, unit, cluster }: DeleteStatefulSetCommand): Promise<void> {
    await attempts(unit, async () => {
      const statefulSet = await this.writer.load(StatefulSetAggregate, statefulSetId(cluster, namespace, name), unit);
      const deleted = decideDeleteStatefulSet(statefulSet.state, cluster, namespace, name);
      const handles = await findStatefulSetHandles(this.db, cluster, namespace, name);
      const pools = new Set(handles.map((h) => h.pool));
      if (statefulSet.state.reservation?.pool) pools.add(statefulSet.state.reservation.pool);
      const changes: Change[] = [];
      for (const poolName of [...pools].sort()) {
        const loaded = await this.writer.load(PoolAggregate, poolName, unit);
        const events: DomainEvent[] = [];
        for (const { handle } of handles.filter((h) => h.pool === poolName)) {
          const released = decideRelease(loaded.state, handle, {}, cluster);
          if (released) events.push(released);
        }
        const range = decideReleaseRange(loaded.state, cluster, namespace, name);
        if (range) events.push(range);
        changes.push({ type: PoolAggregate, loaded, events });
      }
      changes.push({ type: StatefulSetAggregate, loaded: statefulSet, events: [deleted] });
      await this.writer.append(unit, changes, metadata);
    });
  }
}
