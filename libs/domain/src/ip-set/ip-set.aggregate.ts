import type { AggregateType } from '../aggregate-type';
import { DomainError } from '../errors/domain-error';
import type { IpSetEvent, IpSetReserved, IpSetWorkloadDeleted, RangeReserved } from '../events';
import { unknownEvent } from '../events/unknown-event';
import { clusterOf, inCluster } from '../cluster/cluster-scope';
import { rangeOwner } from '../pool/range-owner';
import type { IpSetRef } from './ip-set';

/** One workload's ip-set across all pools: where it is, and whether the workload was deleted. */
export interface IpSetState {
  /** the set's pool and range; null before its first pod and after the workload's deletion */
  set: { pool: string; start: string; end: string } | null;
  /** the uid of the deleted workload of this name (its tombstone), null while none or once a new one reserved */
  deletedUid: string | null;
}

function evolve(_state: IpSetState, event: { type: string; data: Record<string, unknown> }): IpSetState {
  const e = event as IpSetEvent;
  switch (e.type) {
    case 'IpSetReserved':
      return { set: { pool: e.data.pool, start: e.data.start, end: e.data.end }, deletedUid: null };
    case 'IpSetWorkloadDeleted':
      return { set: null, deletedUid: e.data.uid };
    default:
      return unknownEvent(e);
  }
}

/**
 * Stream id `ipset-<namespace>/<kind>/<name>`: the one stream every reservation and release of a
 * workload's set appends to, so two first pods reserving in two pools, or a reservation racing the
 * workload's deletion, meet on its expected version and one of them decides again.
 */
export const IpSetAggregate: AggregateType<IpSetState> = {
  streamPrefix: 'ipset',
  initialState: () => ({ set: null, deletedUid: null }),
  evolve,
};

/** `<namespace>/<kind>/<name>` in the default cluster, `<cluster>/<namespace>/<kind>/<name>` in another (rangeOwner's rule). */
export const ipSetId = (ref: IpSetRef) => rangeOwner(clusterOf(ref), ref.namespace, `${ref.kind}/${ref.name}`);

/**
 * A first pod may reserve its workload's set unless the workload's deletion was applied: no
 * release would come for a set reserved after it. `liveUid` is the uid of the workload of that name
 * the Kubernetes consumer knows live now (null: none); one other than the deleted one is a new
 * workload of the name, which reserves afresh. Refused with IP_SET_WORKLOAD_DELETED (503): kubelet
 * retries until the pod is gone, or until the new workload's message has come.
 */
export function assertIpSetReservable(state: IpSetState, ref: IpSetRef, liveUid: string | null): void {
  if (state.deletedUid === null || (liveUid !== null && liveUid !== state.deletedUid)) return;
  throw new DomainError(
    'IP_SET_WORKLOAD_DELETED',
    `${ref.kind} ${ref.namespace}/${ref.name} (uid ${state.deletedUid}) is deleted: no ip-set is reserved for its pods; ` +
      'retry once a new workload of that name is seen',
  );
}

/** The workload's record of the range reserved for its set in the same append. */
export function ipSetReserved(ref: IpSetRef, range: RangeReserved): IpSetReserved {
  const { pool, start, end } = range.data;
  return {
    type: 'IpSetReserved',
    data: { namespace: ref.namespace, kind: ref.kind, name: ref.name, ...inCluster(clusterOf(ref)), pool, start, end },
  };
}

/** The workload's tombstone; null when this deletion is already recorded and nothing was reserved since (a redelivery). */
export function decideIpSetWorkloadDeleted(state: IpSetState, ref: IpSetRef, uid: string): IpSetWorkloadDeleted | null {
  if (state.deletedUid === uid && state.set === null) return null;
  return {
    type: 'IpSetWorkloadDeleted',
    data: { namespace: ref.namespace, kind: ref.kind, name: ref.name, ...inCluster(clusterOf(ref)), uid },
  };
}
