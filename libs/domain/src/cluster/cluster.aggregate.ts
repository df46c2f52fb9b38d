import type { AggregateType } from '../aggregate-type';
import { DomainError } from '../errors/domain-error';
import { unknownEvent } from '../events/unknown-event';
import type { ClusterDeleted, ClusterEvent, ClusterLabelsSet } from '../events';
import { sameLabels, type Labels } from '../labels';
import { DEFAULT_CLUSTER } from './cluster-name';

/** `exists`: created by a PUT (the default cluster exists without one, its labels empty until set). */
export interface ClusterState {
  exists: boolean;
  labels: Labels;
}

function evolve(_state: ClusterState, event: { type: string; data: Record<string, unknown> }): ClusterState {
  const e = event as ClusterEvent;
  switch (e.type) {
    case 'ClusterLabelsSet':
      return { exists: true, labels: e.data.labels };
    case 'ClusterDeleted':
      return { exists: false, labels: {} };
    default:
      return unknownEvent(e);
  }
}

export const ClusterAggregate: AggregateType<ClusterState> = {
  streamPrefix: 'cluster',
  initialState: () => ({ exists: false, labels: {} }),
  evolve,
};

/** Null when the cluster already has exactly these labels: a repeated PUT appends nothing. */
export function decideSetClusterLabels(state: ClusterState, name: string, labels: Labels): ClusterLabelsSet | null {
  if (state.exists && sameLabels(state.labels, labels)) return null;
  return { type: 'ClusterLabelsSet', data: { name, labels } };
}

/** A cluster a write names comes into being with no labels; one that exists is left as it is (null). */
export function decideEnsureCluster(state: ClusterState, name: string): ClusterLabelsSet | null {
  return state.exists ? null : { type: 'ClusterLabelsSet', data: { name, labels: {} } };
}

/** What a cluster holds, as far as a delete must know: anything at all refuses it. */
export interface ClusterHoldings {
  nodes: number;
  allocations: number;
  statefulSets: number;
  ipSets: number;
}

const HOLDING_NAMES: Record<keyof ClusterHoldings, string> = {
  nodes: 'nodes',
  allocations: 'allocations',
  statefulSets: 'StatefulSet reservations',
  ipSets: 'ip-sets',
};

/**
 * The default cluster is never deleted: it is the cluster of every caller that names none, and of
 * everything written before clusters. Nor is one that still holds nodes, allocations, StatefulSet
 * reservations or ip-sets: their names would fall back to no cluster at all.
 */
export function decideDeleteCluster(state: ClusterState, name: string, holdings: ClusterHoldings): ClusterDeleted {
  if (name === DEFAULT_CLUSTER)
    throw new DomainError(
      'CLUSTER_IN_USE',
      `cluster "${DEFAULT_CLUSTER}" always exists: it is the cluster of every caller that names none`,
    );
  if (!state.exists) throw new DomainError('CLUSTER_NOT_FOUND', `cluster "${name}" does not exist`);
  const held = (Object.keys(HOLDING_NAMES) as Array<keyof ClusterHoldings>).filter((kind) => holdings[kind] > 0);
  if (held.length > 0) {
    throw new DomainError(
      'CLUSTER_IN_USE',
      `cluster "${name}" still has ${held.map((kind) => HOLDING_NAMES[kind]).join(' and ')}; delete or release them first`,
    );
  }
  return { type: 'ClusterDeleted', data: { name } };
}
