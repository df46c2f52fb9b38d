import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { Inject } from '@nestjs/common';
import {
  clusterOf,
  decideIpSetWorkloadDeleted,
  decideReleaseRange,
  ipSetId,
  IpSetAggregate,
  ipSetRangeName,
  PoolAggregate,
  ReleaseIpSetCommand,
} from '@ipledger/domain';
import { findIpSets } from '@ipledger/projections';
import type { Pool } from 'pg';
import { EventWriter, type Change } from '../infrastructure/event-writer';
import { attempts } from '../infrastructure/unit-of-work';
import { PG_POOL } from '../infrastructure/tokens';

/**
 * The workload is gone: its set's range goes back to its pool, in one transaction with any second
 * range an older release's race left, and with the workload's tombstone in its own stream. That
 * stream is read before the ranges: a first pod's reservation committed after the read moves it,
 * so this append fails and decides again, now seeing the set; one deciding after the tombstone is
 * refused. Unlike a StatefulSet's deletion, the addresses its pods hold are not released here: with
 * the Deployment deleted in the background its pods may still run, and an address handed out again
 * while its old pod uses it would be in use twice. Each pod's DEL or deletion frees its own.
 */
@CommandHandler(ReleaseIpSetCommand)
export class ReleaseIpSetHandler implements ICommandHandler<ReleaseIpSetCommand, boolean> {
  constructor(
    private readonly writer: EventWriter,
    @Inject(PG_POOL) private readonly db: Pool,
  ) {}

  /** false when the workload had no set (never had one, or an earlier delivery released it) */
  async execute({ ref, uid, tombstone, metadata, unit }: ReleaseIpSetCommand): Promise<boolean> {
    return attempts(unit, async () => {
      const workload = await this.writer.load(IpSetAggregate, ipSetId(ref), unit);
      const changes: Change[] = [];
      for (const { pool } of await findIpSets(this.db, ref)) {
        const loaded = await this.writer.load(PoolAggregate, pool, unit);
        const released = decideReleaseRange(loaded.state, clusterOf(ref), ref.namespace, ipSetRangeName(ref));
        if (released) changes.push({ type: PoolAggregate, loaded, events: [released] });
      }
      const released = changes.length > 0;
      const deleted = tombstone || workload.state.set ? decideIpSetWorkloadDeleted(workload.state, ref, uid) : null;
      if (deleted) changes.push({ type: IpSetAggregate, loaded: workload, events: [deleted] });
      if (changes.length > 0) await this.writer.append(unit, changes, metadata);
      return released;
    });
  }
}
