import type { AggregateType } from '../aggregate-type';
import { inCluster } from '../cluster/cluster-scope';
import { DomainError } from '../errors/domain-error';
import { rangeOwner } from '../pool/range-owner';
import { unknownEvent } from '../events/unknown-event';
import type { StatefulSetDeleted, StatefulSetEvent, StatefulSetReconciled } from '../events';

export type Reservation = StatefulSetReconciled['data'];

export interface StatefulSetState {
  /** the last reconciled outcome, null before the first PUT and after a DELETE */
  reservation: Reservation | null;
}

function evolve(_state: StatefulSetState, event: { type: string; data: Record<string, unknown> }): StatefulSetState {
  const e = event as StatefulSetEvent;
  switch (e.type) {
    case 'StatefulSetReconciled':
      return { reservation: e.data };
    case 'StatefulSetDeleted':
      // a later PUT of the same name starts afresh
      return { reservation: null };
    default:
      return unknownEvent(e);
  }
}

/**
 * Stream id `statefulset-<namespace>/<name>` (default cluster), `statefulset-<cluster>/<namespace>/<name>`
 * (another; rangeOwner's rule): one stream a key, so concurrent PUTs of one key serialise.
 */
export const StatefulSetAggregate: AggregateType<StatefulSetState> = {
  streamPrefix: 'statefulset',
  initialState: () => ({ reservation: null }),
  evolve,
};

export const statefulSetId = (cluster: string, namespace: string, name: string) => rangeOwner(cluster, namespace, name);

/** Field by field: a reservation read back from jsonb has its keys in another order. */
const same = (a: Reservation, b: Reservation) =>
  a.replicas === b.replicas &&
  a.ordinalsStart === b.ordinalsStart &&
  a.pool === b.pool &&
  a.mode === b.mode &&
  a.reason === b.reason &&
  a.range?.start === b.range?.start &&
  a.range?.end === b.range?.end;

/** Null when the outcome is what was recorded last: the same PUT again appends nothing. */
export function decideReconciled(state: StatefulSetState, outcome: Reservation): StatefulSetReconciled | null {
  return state.reservation && same(state.reservation, outcome) ? null : { type: 'StatefulSetReconciled', data: outcome };
}

export function decideDeleteStatefulSet(state: StatefulSetState, cluster: string, namespace: string, name: string): StatefulSetDeleted {
  if (!state.reservation) {
    throw new DomainError('STATEFULSET_NOT_FOUND', `StatefulSet ${namespace}/${name} has no reservation in cluster "${cluster}"`);
  }
  return { type: 'StatefulSetDeleted', data: { namespace, name, ...inCluster(cluster) } };
}
