import type { AggregateType } from '../aggregate-type';
import { DomainError } from '../errors/domain-error';
import { unknownEvent } from '../events/unknown-event';
import type { NodeDeleted, NodeEvent, NodeLabelsSet } from '../events';
import { sameLabels, type Labels } from '../labels';
import { inCluster } from '../cluster/cluster-scope';
import { DEFAULT_CLUSTER } from '../cluster/cluster-name';

export interface NodeState {
  name: string;
  exists: boolean;
  labels: Labels;
}

function evolve(_state: NodeState, event: { type: string; data: Record<string, unknown> }): NodeState {
  const e = event as NodeEvent;
  switch (e.type) {
    case 'NodeLabelsSet':
      return { name: e.data.name, exists: true, labels: e.data.labels };
    case 'NodeDeleted':
      return { name: e.data.name, exists: false, labels: {} };
    default:
      return unknownEvent(e);
  }
}

export const NodeAggregate: AggregateType<NodeState> = {
  streamPrefix: 'node',
  initialState: () => ({ name: '', exists: false, labels: {} }),
  evolve,
};

/** Null when the node already has exactly these labels: a repeated PUT appends nothing. */
export function decideSetNodeLabels(state: NodeState, name: string, labels: Labels, cluster = DEFAULT_CLUSTER): NodeLabelsSet | null {
  if (state.exists && sameLabels(state.labels, labels)) return null;
  return { type: 'NodeLabelsSet', data: { name, ...inCluster(cluster), labels } };
}

export function decideDeleteNode(state: NodeState, name: string, cluster = DEFAULT_CLUSTER): NodeDeleted {
  if (!state.exists)
    throw new DomainError('NODE_NOT_FOUND', `node "${name}" does not exist${inCluster(cluster).cluster ? ` in cluster "${cluster}"` : ''}`);
  return { type: 'NodeDeleted', data: { name, ...inCluster(cluster) } };
}
