import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AdoptPodIpsCommand, adoptedHandle, decideAdopt, inCluster, PoolAggregate } from '@ipledger/domain';
import { parseIp } from '@ipledger/ip';
import { EventWriter, type Change } from '../infrastructure/event-writer';
import { KeyedMutex } from '../infrastructure/keyed-mutex';
import { attempts } from '../infrastructure/unit-of-work';

/** Whether the adoption appended anything (false: the pod's adoption was already recorded). */
export interface AdoptPodIpsResult {
  adopted: boolean;
}

/**
 * Adoption: each pool decides on its own state (decideAdopt: an address held by another handle is
 * refused, never handed out twice), one pool lock at a time, IPv4 first like allocation, and every
 * family is appended in one transaction: all of the pod's addresses or none. The handle is the
 * pod's cluster's (handleKey): another cluster's pod of the same uid holds its own.
 */
@CommandHandler(AdoptPodIpsCommand)
export class AdoptPodIpsHandler implements ICommandHandler<AdoptPodIpsCommand, AdoptPodIpsResult> {
  constructor(
    private readonly writer: EventWriter,
    private readonly mutex: KeyedMutex,
  ) {}

  async execute({ pod, addresses, metadata, unit, cluster }: AdoptPodIpsCommand): Promise<AdoptPodIpsResult> {
    const handle = adoptedHandle(pod.podUid);
    const ordered = addresses.map((a) => ({ pool: a.pool, ip: parseIp(a.ip) })).sort((a, b) => a.ip.family - b.ip.family);
    return attempts(unit, async () => {
      const unlocks: Array<() => void> = [];
      try {
        const changes: Change[] = [];
        for (const { pool, ip } of ordered) {
          unlocks.push(await this.mutex.lockPool(pool));
          const loaded = await this.writer.load(PoolAggregate, pool, unit);
          const decision = decideAdopt(loaded.state, { handle, ...pod, owner: 'pod', ip: ip.value, ...inCluster(cluster) });
          const events = [...(decision.claim ? [decision.claim] : []), ...(decision.event ? [decision.event] : [])];
          changes.push({ type: PoolAggregate, loaded, events });
        }
        const recorded = await this.writer.append(unit, changes, metadata);
        return { adopted: recorded.length > 0 };
      } finally {
        unlocks.forEach((unlock) => unlock());
      }
    });
  }
}
