import { deciderSpecification } from '../../../../test/support/decider-specification';
import { DomainError } from '../errors/domain-error';
import { decideDeleteNode, decideSetNodeLabels, NodeAggregate } from './node.aggregate';

const { given, evolved } = deciderSpecification(NodeAggregate);
const labelsSet = (labels: Record<string, string>) => ({ type: 'NodeLabelsSet' as const, data: { name: 'w', labels } });

describe('NodeAggregate', () => {
  it('sets labels on an unknown node, creating it', () => {
    const event = decideSetNodeLabels(NodeAggregate.initialState(), 'worker-1', { zone: 'a' });
    expect(event).toEqual({ type: 'NodeLabelsSet', data: { name: 'worker-1', labels: { zone: 'a' } } });
    expect(evolved(NodeAggregate.initialState(), event)).toEqual({ name: 'worker-1', exists: true, labels: { zone: 'a' } });
  });

  it('an unknown node with no labels still gets an event', () => {
    expect(decideSetNodeLabels(NodeAggregate.initialState(), 'worker-1', {})).toEqual({
      type: 'NodeLabelsSet',
      data: { name: 'worker-1', labels: {} },
    });
  });

  it('returns null for the same labels, in any key order, and replaces them otherwise', () => {
    given(labelsSet({ a: '1', b: '2' }))
      .when((state) => decideSetNodeLabels(state, 'w', { b: '2', a: '1' }))
      .then(null);
    const { state } = given(labelsSet({ a: '1', b: '2' }));
    expect(decideSetNodeLabels(state, 'w', { a: '1' })?.data.labels).toEqual({ a: '1' });
    expect(decideSetNodeLabels(state, 'w', { a: '1', b: '3' })?.data.labels).toEqual({ a: '1', b: '3' });
    expect(decideSetNodeLabels(state, 'w', { a: '1', c: '2' })?.data.labels).toEqual({ a: '1', c: '2' });
    expect(decideSetNodeLabels(state, 'w', { a: '1', b: '2', c: '' })?.data.labels).toEqual({ a: '1', b: '2', c: '' });
  });

  it('deletes a known node; a deleted node takes its old labels again as a change', () => {
    given(labelsSet({ a: '1' }))
      .when((state) => decideDeleteNode(state, 'w'))
      .then({ type: 'NodeDeleted', data: { name: 'w' } });
    given(labelsSet({ a: '1' }), { type: 'NodeDeleted', data: { name: 'w' } })
      .when((state) => decideDeleteNode(state, 'w'))
      .thenThrows({ code: 'NODE_NOT_FOUND' });
    const { state } = given(labelsSet({ a: '1' }), { type: 'NodeDeleted', data: { name: 'w' } });
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
