import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import {
  decideReconciled,
  parseStatefulSetSpec,
  planReservation,
  planResize,
  PoolAggregate,
  reservationRefusal,
  ReconcileStatefulSetCommand,
  StatefulSetAggregate,
  statefulSetId,
  type Exclusion,
  type UnitOfWork,
  type RangePassedOver,
  type ReservationPlan,
  type ValidStatefulSetSpec,
} from '@ipledger/domain';
import { ConcurrencyError, type Loaded } from '@ipledger/event-store';
import { eligiblePoolPages, noEligiblePoolMessage } from '@ipledger/projections';
import type { Pool } from 'pg';
import type { Config } from '../config';
import { EventWriter, type Change } from '../infrastructure/event-writer';
import { KeyedMutex } from '../infrastructure/keyed-mutex';
import { attempts } from '../infrastructure/unit-of-work';
import { CONFIG, PG_POOL } from '../infrastructure/tokens';

interface Planned {
  plan: ReservationPlan;
  /** the loaded pool the plan's event goes to */
  pool: Loaded<unknown> | null;
}

/**
 * Reconciles a StatefulSet to the desired state in the request, whatever was recorded before
 * (level-triggered): a StatefulSet with a range resizes it in place; one without (new, or dynamic
 * so far) looks for a continuous run in its eligible pools again (the planners in the domain
 * decide). The StatefulSet's stream and the pool's stream are appended together, so two PUTs of one
 * key, or many keys into one pool, stay consistent across replicas.
 */
@CommandHandler(ReconcileStatefulSetCommand)
export class ReconcileStatefulSetHandler implements ICommandHandler<ReconcileStatefulSetCommand, void> {
  constructor(
    private readonly writer: EventWriter,
    private readonly mutex: KeyedMutex,
    @Inject(PG_POOL) private readonly db: Pool,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async execute({ spec, metadata, unit, cluster }: ReconcileStatefulSetCommand): Promise<void> {
    const desired = parseStatefulSetSpec(spec, this.config.defaultMatchLabel, cluster);
    await attempts(unit, async () => {
      const statefulSet = await this.writer.load(
        StatefulSetAggregate,
        statefulSetId(desired.cluster, desired.namespace, desired.name),
        unit,
      );
      const current = statefulSet.state.reservation;
      const unlocks: Array<() => void> = [];
      try {
        const { plan, pool } =
          current?.range && current.pool
            ? await this.resize(desired, current.pool, unlocks, unit)
            : await this.reserve(desired, unlocks, unit);
        // the pool moved under the StatefulSet we read: decide again on fresh state
        if (plan.raced || !plan.outcome) throw new ConcurrencyError(statefulSet.streamId, statefulSet.version);
        const event = decideReconciled(statefulSet.state, plan.outcome);
        const changes: Change[] = [{ type: StatefulSetAggregate, loaded: statefulSet, events: event ? [event] : [] }];
        if (pool) changes.unshift({ type: PoolAggregate, loaded: pool, events: plan.event ? [plan.event] : [] });
        await this.writer.append(unit, changes, metadata);
      } finally {
        unlocks.forEach((unlock) => unlock());
      }
    });
  }

  private async resize(desired: ValidStatefulSetSpec, poolName: string, unlocks: Array<() => void>, unit: UnitOfWork): Promise<Planned> {
    unlocks.push(await this.mutex.lockPool(poolName));
    const loaded = await this.writer.load(PoolAggregate, poolName, unit);
    return { plan: planResize({ name: poolName, state: loaded.state }, desired), pool: loaded };
  }

  /** Walks the eligible pools in order, one lock at a time, keeping the lock of the pool that reserves. */
  private async reserve(desired: ValidStatefulSetSpec, unlocks: Array<() => void>, unit: UnitOfWork): Promise<Planned> {
    let plan = planReservation([], desired);
    if (plan.outcome) return { plan, pool: null };
    const excluded: Exclusion[] = [];
    let passedOver: RangePassedOver[] = [];
    let eligibleSeen = 0;
    for await (const page of eligiblePoolPages(this.db, desired.rule, desired.node, [4, 6], undefined, undefined, null, desired.cluster)) {
      excluded.push(...page.excluded);
      for (const candidate of page.eligible) {
        eligibleSeen++;
        const unlock = await this.mutex.lockPool(candidate.name);
        const loaded = await this.writer.load(PoolAggregate, candidate.name, unit);
        plan = planReservation([{ name: candidate.name, state: loaded.state }], desired, passedOver);
        if (plan.outcome || plan.raced) {
          unlocks.push(unlock);
          return { plan, pool: loaded };
        }
        unlock();
        passedOver = plan.passedOver;
      }
    }
    const noEligible = eligibleSeen === 0 ? noEligiblePoolMessage(desired.rule, desired.node, excluded) : null;
    return { plan: { ...plan, outcome: reservationRefusal(desired, passedOver, noEligible) }, pool: null };
  }
}
