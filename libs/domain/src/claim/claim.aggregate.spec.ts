import { deepFreeze } from '../../../../test/support/deep-freeze';
import type { DomainEvent } from '../events';
import {
  ClaimAggregate,
  decideAddReference,
  decideDeleteClaim,
  decideDropReference,
  decidePutClaim,
  type ClaimReferenceInput,
  type ClaimState,
} from './claim.aggregate';
import { assertCallerHandle, claimHolding, validateClaimName } from './claim-name';

const addresses = [{ ip: '10.0.0.5', pool: 'p' }];
const ref = (handle: string, node = 'worker-1', cluster = 'default'): ClaimReferenceInput => ({
  handle,
  cluster,
  node,
  namespace: 'vms',
  pod: `launcher-${handle}`,
});
const fold = (events: DomainEvent[]): ClaimState =>
  events.reduce((state, event, i) => ClaimAggregate.evolve(deepFreeze(state), { ...event, version: i + 1 }), ClaimAggregate.initialState());
const refused = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return (err as { code: string }).code;
  }
  return null;
};

describe('claim aggregate', () => {
  it('is made transient by its first reference, takes a second, and refuses a third', () => {
    const first = decideAddReference(ClaimAggregate.initialState(), 'vm', ref('a'), addresses);
    expect(first.map((e) => e.type)).toEqual(['ClaimCreated', 'ClaimReferenceAdded']);
    expect(first[0].data).toEqual({ name: 'vm', persistent: false, network: null, cluster: 'default' });
    const one = fold(first);
    const second = decideAddReference(one, 'vm', ref('b', 'worker-2'), addresses);
    expect(second).toEqual([
      {
        type: 'ClaimReferenceAdded',
        data: { name: 'vm', handle: 'b', cluster: 'default', node: 'worker-2', namespace: 'vms', pod: 'launcher-b', addresses },
      },
    ]);
    const two = fold([...first, ...second]);
    expect([...two.references.values()].map((r) => r.handle)).toEqual(['a', 'b']);
    expect(refused(() => decideAddReference(two, 'vm', ref('c'), addresses))).toBe('CLAIM_REFERENCES_FULL');
    // a reference already taken is taken again silently (a retried ADD)
    expect(decideAddReference(two, 'vm', ref('a'), addresses)).toEqual([]);
  });

  it('drops one reference at a time; a transient claim ends with its last, a persistent one does not', () => {
    const transient = fold([...decideAddReference(ClaimAggregate.initialState(), 'vm', ref('a'), addresses)]);
    expect(decideDropReference(transient, 'vm', { cluster: 'default', handle: 'a' }, addresses).map((e) => e.type)).toEqual([
      'ClaimReferenceDropped',
      'ClaimDeleted',
    ]);
    expect(decideDropReference(transient, 'vm', { cluster: 'default', handle: 'other' }, addresses)).toEqual([]);
    const put = decidePutClaim(ClaimAggregate.initialState(), 'vm', { cluster: 'default' })!;
    const persistent = fold([put, ...decideAddReference(fold([put]), 'vm', ref('a'), addresses)]);
    const dropped = decideDropReference(persistent, 'vm', { cluster: 'default', handle: 'a' }, addresses);
    expect(dropped.map((e) => e.type)).toEqual(['ClaimReferenceDropped']);
    expect(fold([put, ...decideAddReference(fold([put]), 'vm', ref('a'), addresses), ...dropped])).toMatchObject({
      exists: true,
      persistent: true,
      references: new Map(),
    });
  });

  it("tells apart one handle in two clusters (a migration between clusters keeping the caller's workload id): each its own reference, dropped alone", () => {
    const source = decideAddReference(ClaimAggregate.initialState(), 'vm', ref('ns/vm', 'w1', 'east'), addresses);
    const target = decideAddReference(fold(source), 'vm', ref('ns/vm', 'w1', 'west'), addresses);
    expect(target.map((e) => e.type)).toEqual(['ClaimReferenceAdded']);
    const both = fold([...source, ...target]);
    expect([...both.references.values()].map((r) => r.cluster)).toEqual(['east', 'west']);
    // the source's release leaves the target's reference, and the claim with it
    const released = decideDropReference(both, 'vm', { cluster: 'east', handle: 'ns/vm' }, addresses);
    expect(released).toEqual([
      expect.objectContaining({ type: 'ClaimReferenceDropped', data: expect.objectContaining({ cluster: 'east' }) }),
    ]);
    expect([...fold([...source, ...target, ...released]).references.values()].map((r) => r.cluster)).toEqual(['west']);
  });

  it('makes a PUT claim persistent, a transient one persistent by a PUT, and a repeated PUT appends nothing', () => {
    expect(decidePutClaim(ClaimAggregate.initialState(), 'vm', { network: 'net', cluster: 'east' })).toEqual({
      type: 'ClaimCreated',
      data: { name: 'vm', persistent: true, network: 'net', cluster: 'east' },
    });
    const transient = fold(decideAddReference(ClaimAggregate.initialState(), 'vm', ref('a'), addresses));
    expect(decidePutClaim(transient, 'vm', { cluster: 'default' })).toEqual({ type: 'ClaimPersisted', data: { name: 'vm' } });
    expect(
      fold([
        ...decideAddReference(ClaimAggregate.initialState(), 'vm', ref('a'), addresses),
        { type: 'ClaimPersisted', data: { name: 'vm' } },
      ]).persistent,
    ).toBe(true);
    const persistent = fold([decidePutClaim(ClaimAggregate.initialState(), 'vm', { cluster: 'default' })!]);
    expect(decidePutClaim(persistent, 'vm', { cluster: 'default' })).toBeNull();
  });

  it('keeps a claim to one network: its first reference sets it, another is refused', () => {
    const put = decidePutClaim(ClaimAggregate.initialState(), 'vm', { cluster: 'default' })!;
    const added = decideAddReference(fold([put]), 'vm', { ...ref('a'), network: 'net' }, addresses);
    expect(added[0].data).toMatchObject({ network: 'net' });
    const state = fold([put, ...added]);
    expect(state.network).toBe('net');
    expect(refused(() => decideAddReference(state, 'vm', { ...ref('b'), network: 'other' }, addresses))).toBe('INVALID_ARGUMENT');
    expect(refused(() => decidePutClaim(state, 'vm', { network: 'other', cluster: 'default' }))).toBe('INVALID_ARGUMENT');
  });

  it('deletes a claim with its references, each recorded; an unknown claim is CLAIM_NOT_FOUND', () => {
    const state = fold([
      ...decideAddReference(ClaimAggregate.initialState(), 'vm', ref('a'), addresses),
      ...decideAddReference(fold(decideAddReference(ClaimAggregate.initialState(), 'vm', ref('a'), addresses)), 'vm', ref('b'), addresses),
    ]);
    expect(decideDeleteClaim(state, 'vm', addresses).map((e) => [e.type, 'handle' in e.data ? e.data.handle : null])).toEqual([
      ['ClaimReferenceDropped', 'a'],
      ['ClaimReferenceDropped', 'b'],
      ['ClaimDeleted', null],
    ]);
    expect(refused(() => decideDeleteClaim(ClaimAggregate.initialState(), 'vm', []))).toBe('CLAIM_NOT_FOUND');
    expect(
      fold([
        ...decideAddReference(ClaimAggregate.initialState(), 'vm', ref('a'), addresses),
        { type: 'ClaimDeleted', data: { name: 'vm' } },
      ]).exists,
    ).toBe(false);
  });

  it('names: 1-253 of letters, digits and `._:/-`; a holding handle no caller may use', () => {
    expect(validateClaimName('kubevirt:east:vms/db_1.eth0')).toBe('kubevirt:east:vms/db_1.eth0');
    expect(validateClaimName('x'.repeat(253))).toHaveLength(253);
    for (const bad of ['', 'x'.repeat(254), 'a b', 'a@b', 'a%2Fb', 'é']) expect(refused(() => validateClaimName(bad))).toBe('INVALID_NAME');
    expect(claimHolding('x'.repeat(253))).toHaveLength(254);
    expect(refused(() => assertCallerHandle(claimHolding('vm')))).toBe('INVALID_ARGUMENT');
    expect(assertCallerHandle('abc:eth0')).toBe('abc:eth0');
  });
});
