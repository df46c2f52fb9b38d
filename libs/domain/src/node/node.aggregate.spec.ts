import { DomainError } from '../errors/domain-error';
import type { NodeEvent } from '../events';
import { decideDeleteNode, decideSetNodeLabels, NodeAggregate, type NodeState } from './node.aggregate';

const apply = (state: NodeState, event: NodeEvent | null): NodeState =>
  event ? NodeAggregate.evolve(state, { ...event, version: 1 }) : state;

describe('NodeAggregate', () => {
  it('sets labels on an unknown node, creating it', () => {
    const event = decideSetNodeLabels(NodeAggregate.initialState(), 'worker-1', { zone: 'a' });
    expect(event).toEqual({ type: 'NodeLabelsSet', data: { name: 'worker-1', labels: { zone: 'a' } } });
    expect(apply(NodeAggregate.initialState(), event)).toEqual({ name: 'worker-1', exists: true, labels: { zone: 'a' } });
  });

  it('an unknown node with no labels still gets an event', () => {
    expect(decideSetNodeLabels(NodeAggregate.initialState(), 'worker-1', {})).toEqual({
      type: 'NodeLabelsSet',
      data: { name: 'worker-1', labels: {} },
    });
  });

  it('returns null for the same labels, in any key order, and replaces them otherwise', () => {
    const state = apply(NodeAggregate.initialState(), decideSetNodeLabels(NodeAggregate.initialState(), 'w', { a: '1', b: '2' }));
    expect(decideSetNodeLabels(state, 'w', { b: '2', a: '1' })).toBeNull();
    expect(decideSetNodeLabels(state, 'w', { a: '1' })?.data.labels).toEqual({ a: '1' });
    expect(decideSetNodeLabels(state, 'w', { a: '1', b: '3' })?.data.labels).toEqual({ a: '1', b: '3' });
    expect(decideSetNodeLabels(state, 'w', { a: '1', c: '2' })?.data.labels).toEqual({ a: '1', c: '2' });
    expect(decideSetNodeLabels(state, 'w', { a: '1', b: '2', c: '' })?.data.labels).toEqual({ a: '1', b: '2', c: '' });
  });

  it('deletes a known node; a deleted node takes its old labels again as a change', () => {
    let state = apply(NodeAggregate.initialState(), decideSetNodeLabels(NodeAggregate.initialState(), 'w', { a: '1' }));
    const deleted = decideDeleteNode(state, 'w');
    expect(deleted).toEqual({ type: 'NodeDeleted', data: { name: 'w' } });
    state = apply(state, deleted);
    expect(state).toEqual({ name: 'w', exists: false, labels: {} });
    expect(decideSetNodeLabels(state, 'w', { a: '1' })).not.toBeNull();
    expect(decideSetNodeLabels(state, 'w', {})).not.toBeNull();
  });

  it.each([
    ['never seen', NodeAggregate.initialState()],
    ['deleted', { name: 'w', exists: false, labels: {} }],
  ])('deleting a %s node is NODE_NOT_FOUND', (_, state) => {
    try {
      decideDeleteNode(state, 'w');
      throw new Error('expected a DomainError');
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe('NODE_NOT_FOUND');
      expect((error as DomainError).message).toBe('node "w" does not exist');
    }
  });
});
