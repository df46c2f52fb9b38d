import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  decideReconciled,
  decideReleaseRange,
  decideReserveRange,
  decideResizeRange,
  largestFreeRun,
  parseStatefulSetSpec,
  PoolAggregate,
  rangeOwner,
  ReconcileStatefulSetCommand,
  StatefulSetAggregate,
  statefulSetId,
  type Exclusion,
  type Reservation,
  type ValidStatefulSetSpec,
} from '@ipledger/domain';
import { formatIp, parseIp } from '@ipledger/ip';
import { ConcurrencyError, type Loaded } from '@ipledger/event-store';
import { eligiblePoolPages, noEligiblePoolMessage } from '@ipledger/projections';
import type { Pool } from 'pg';
import type { Config } from '../config';
import { EventWriter, type Change } from '../infrastructure/event-writer';
import { KeyedMutex } from '../infrastructure/keyed-mutex';
import { retryOnConflict } from '../infrastructure/retry-on-conflict';
import { CONFIG, PG_POOL } from '../infrastructure/tokens';

interface Plan {
  outcome: Reservation;
  /** the pool's range change, when there is one */
  change: Change | null;
}

const NO_REPLICAS = 'replicas is 0: no range is held';

/**
 * Reconciles a StatefulSet to the desired state in the request, whatever was recorded before
 * (level-triggered): a StatefulSet with a range resizes it in place; one without (new, or dynamic
 * so far) looks for a continuous run in its eligible pools again. The StatefulSet's stream and the
 * pool's stream are appended together, so two PUTs of one key, or many keys into one pool, stay
 * consistent across replicas.
 */
@CommandHandler(ReconcileStatefulSetCommand)
export class ReconcileStatefulSetHandler implements ICommandHandler<ReconcileStatefulSetCommand, void> {
  constructor(
    private readonly writer: EventWriter,
    private readonly mutex: KeyedMutex,
    @Inject(PG_POOL) private readonly pool: Pool,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async execute({ spec, metadata }: ReconcileStatefulSetCommand): Promise<void> {
    const desired = parseStatefulSetSpec(spec, this.config.defaultMatchLabel);
    await retryOnConflict(async () => {
      const statefulSet = await this.writer.load(StatefulSetAggregate, statefulSetId(desired.namespace, desired.name));
      const current = statefulSet.state.reservation;
      const unlocks: Array<() => void> = [];
      try {
        const plan =
          current?.range && current.pool
            ? await this.resize(desired, current.pool, statefulSet, unlocks)
            : await this.reserve(desired, statefulSet, unlocks);
        const event = decideReconciled(statefulSet.state, plan.outcome);
        await this.writer.append(
          [...(plan.change ? [plan.change] : []), { type: StatefulSetAggregate, loaded: statefulSet, events: event ? [event] : [] }],
          metadata,
        );
      } finally {
        unlocks.forEach((unlock) => unlock());
      }
    });
  }

  private async resize(
    desired: ValidStatefulSetSpec,
    poolName: string,
    { streamId, version }: Loaded<unknown>,
    unlocks: Array<() => void>,
  ): Promise<Plan> {
    unlocks.push(await this.mutex.lock(`pool-${poolName}`));
    const loaded = await this.writer.load(PoolAggregate, poolName);
    const { namespace, name, replicas, ordinalsStart } = desired;
    const held = loaded.state.ranges.get(rangeOwner(namespace, name));
    // a concurrent DELETE released it after we read the StatefulSet: decide again on its outcome
    if (!held || !loaded.state.cidr) throw new ConcurrencyError(streamId, version);
    if (replicas === 0) {
      const released = decideReleaseRange(loaded.state, namespace, name);
      return {
        outcome: outcome(desired, null, null, NO_REPLICAS),
        change: { type: PoolAggregate, loaded, events: released ? [released] : [] },
      };
    }
    const resized = decideResizeRange(loaded.state, namespace, name, BigInt(replicas));
    const end = resized ? parseIp(resized.data.end).value : held.end;
    const family = loaded.state.cidr.family;
    const range = { start: formatIp({ family, value: held.start }), end: formatIp({ family, value: end }) };
    const size = Number(end - held.start) + 1;
    const reason =
      size < replicas
        ? `ordinals ${ordinalsStart + size} to ${ordinalsStart + replicas - 1} get addresses on the fly: the addresses after ${range.end} are taken`
        : null;
    return {
      outcome: outcome(desired, poolName, range, reason),
      change: { type: PoolAggregate, loaded, events: resized ? [resized] : [] },
    };
  }

  /** First eligible pool with a free run of `replicas` addresses; else dynamic, saying what the largest run was. */
  private async reserve(desired: ValidStatefulSetSpec, { streamId, version }: Loaded<unknown>, unlocks: Array<() => void>): Promise<Plan> {
    if (desired.replicas === 0) return { outcome: outcome(desired, null, null, NO_REPLICAS), change: null };
    const excluded: Exclusion[] = [];
    let largest: { pool: string; start: string; length: bigint } | null = null;
    let eligibleSeen = 0;
    for await (const page of eligiblePoolPages(this.pool, desired.rule, desired.node, [4, 6])) {
      excluded.push(...page.excluded);
      for (const candidate of page.eligible) {
        eligibleSeen++;
        const unlock = await this.mutex.lock(`pool-${candidate.name}`);
        let keepLock = false;
        try {
          const loaded = await this.writer.load(PoolAggregate, candidate.name);
          if (!loaded.state.exists) continue;
          // a concurrent PUT of this key reserved first: decide again on its outcome
          if (loaded.state.ranges.has(rangeOwner(desired.namespace, desired.name))) throw new ConcurrencyError(streamId, version);
          const reserved = decideReserveRange(loaded.state, desired.namespace, desired.name, BigInt(desired.replicas));
          if (reserved) {
            keepLock = true;
            unlocks.push(unlock);
            const range = { start: reserved.data.start, end: reserved.data.end };
            return { outcome: outcome(desired, candidate.name, range, null), change: { type: PoolAggregate, loaded, events: [reserved] } };
          }
          const run = largestFreeRun(loaded.state);
          if (run && (!largest || run.length > largest.length)) {
            largest = { pool: candidate.name, start: formatIp({ family: candidate.family, value: run.start }), length: run.length };
          }
        } finally {
          if (!keepLock) unlock();
        }
      }
    }
    const reason =
      eligibleSeen === 0
        ? noEligiblePoolMessage(desired.rule, desired.node, excluded)
        : `no eligible pool has ${desired.replicas} continuous free addresses; ` +
          (largest
            ? `the largest free run is ${largest.length} addresses from ${largest.start} in pool "${largest.pool}"`
            : 'they have no free address');
    return { outcome: outcome(desired, null, null, reason), change: null };
  }
}

function outcome(desired: ValidStatefulSetSpec, pool: string | null, range: Reservation['range'], reason: string | null): Reservation {
  return {
    namespace: desired.namespace,
    name: desired.name,
    replicas: desired.replicas,
    ordinalsStart: desired.ordinalsStart,
    pool,
    mode: range ? 'continuous' : 'dynamic',
    range,
    reason,
  };
}
