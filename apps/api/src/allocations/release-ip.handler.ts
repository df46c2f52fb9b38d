import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  assertNodeMayRelease,
  decideRelease,
  DropClaimReferenceCommand,
  PoolAggregate,
  ReleaseIpCommand,
  validateClusterName,
  validateHandle,
  type PoolView,
} from '@ipledger/domain';
import { EventWriter, type Change } from '../infrastructure/event-writer';
import { KeyedMutex } from '../infrastructure/keyed-mutex';
import { PoolGroupCommit } from '../infrastructure/pool-group-commit';
import { attempts } from '../infrastructure/unit-of-work';
import { AllocationReads } from './allocation-reads';

/**
 * CNI DEL: releases whatever the handle holds, in every pool, in one transaction; nothing held is
 * fine. One pool (the common case) goes through that pool's group commit. A credential bound to a
 * node is refused (nothing released) when any of it is another node's or external, checked on the
 * state the release is decided on. A handle that is a claim's reference holds no address of its
 * own: its release drops the reference (claims/), found by the same read.
 */
@CommandHandler(ReleaseIpCommand)
export class ReleaseIpHandler implements ICommandHandler<ReleaseIpCommand, void> {
  constructor(
    private readonly writer: EventWriter,
    private readonly mutex: KeyedMutex,
    private readonly groupCommit: PoolGroupCommit,
    private readonly reads: AllocationReads,
    private readonly commands: CommandBus,
  ) {}

  async execute({ handle, metadata, unit, condition, restriction, cluster }: ReleaseIpCommand): Promise<void> {
    validateHandle(handle);
    validateClusterName(cluster);
    const decide = (state: PoolView) => {
      assertNodeMayRelease(restriction, state, handle, cluster);
      return decideRelease(state, handle, condition, cluster);
    };
    await attempts(unit, async () => {
      // IPv4 first, like allocation, so the two never wait on each other's pool locks in a cycle
      const { held, claim } = await this.reads.start({ handle, cluster, namespace: '', statefulSet: null, node: null, pools: [] });
      // a claim's reference holds no address of its own: that reference goes (the same read found it)
      if (claim !== null) {
        await this.commands.execute(new DropClaimReferenceCommand(handle, claim, metadata, unit, restriction, cluster));
        return;
      }
      const pools = [...new Set(held.map((a) => a.pool))];
      // a fenced or deferred unit's appends are its own: only an own transaction's join the group commit
      if (pools.length === 1 && unit.mode === 'own-transaction') {
        return this.groupCommit.run(pools[0], {
          metadata,
          decide: (state) => {
            const event = decide(state);
            return { events: event ? [event] : [], answer: () => undefined };
          },
        });
      }
      const unlocks: Array<() => void> = [];
      try {
        const changes: Change[] = [];
        for (const name of pools) {
          unlocks.push(await this.mutex.lockPool(name));
          const loaded = await this.writer.load(PoolAggregate, name, unit);
          const event = decide(loaded.state);
          changes.push({ type: PoolAggregate, loaded, events: event ? [event] : [] });
        }
        await this.writer.append(unit, changes, metadata);
      } finally {
        unlocks.forEach((unlock) => unlock());
      }
    });
  }
}
