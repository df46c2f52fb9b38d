import { Injectable } from '@nestjs/common';
import {
  decideReleaseIdleBlocks,
  decideReleaseNodeBlocks,
  PoolAggregate,
  type CommandMetadata,
  type PoolView,
  type UnitOfWork,
} from '@ipledger/domain';
import { EventWriter } from '../infrastructure/event-writer';
import { attempts } from '../infrastructure/unit-of-work';

/** Blocks going back to their pool: the aggregate decides which, on its own state; this loads, calls and appends. */
@Injectable()
export class BlockRelease {
  constructor(private readonly writer: EventWriter) {}

  /** The pool's empty blocks whose delay has passed at `now` (the database clock, milliseconds); the number released. */
  idle(pool: string, now: number, metadata: CommandMetadata, unit: UnitOfWork): Promise<number> {
    return this.release(pool, (state) => decideReleaseIdleBlocks(state, now), metadata, unit);
  }

  /** A deleted node's empty blocks in this pool. */
  ofNode(pool: string, node: string, metadata: CommandMetadata, unit: UnitOfWork, cluster: string): Promise<number> {
    return this.release(pool, (state) => decideReleaseNodeBlocks(state, cluster, node), metadata, unit);
  }

  private release(
    pool: string,
    decide: (state: PoolView) => ReturnType<typeof decideReleaseIdleBlocks>,
    metadata: CommandMetadata,
    unit: UnitOfWork,
  ) {
    return attempts(unit, async () => {
      const loaded = await this.writer.load(PoolAggregate, pool, unit);
      const events = decide(loaded.state);
      if (events.length > 0) await this.writer.append(unit, [{ type: PoolAggregate, loaded, events }], metadata);
      return events.length;
    });
  }
}
