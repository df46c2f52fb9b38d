import { deepFreeze } from '../../../test/support/deep-freeze';
import type { DomainEvent } from './events';
import { NodeAggregate } from './node/node.aggregate';
import { draftPool } from './pool/pool-draft';
import { PoolAggregate } from './pool/pool.aggregate';
import { StatefulSetAggregate } from './statefulset/statefulset.aggregate';
import type { AggregateType } from './aggregate-type';

let version = 0;
const recorded = (event: DomainEvent) => ({ ...event, version: ++version });
const folded = <S>(type: AggregateType<S>, events: DomainEvent[]) =>
  events.reduce((state, event) => type.evolve(state, recorded(event)), type.initialState());

const holder = (n: number) => ({ handle: `h${n}`, node: 'n1', namespace: 'default', pod: `pod-${n}`, podUid: null });
const allocated = (n: number, ip = `10.0.0.${n}`): DomainEvent => ({
  type: 'IpAllocated',
  data: { pool: 'p', ip, family: 4, ...holder(n) },
});
const released = (n: number, ip = `10.0.0.${n}`): DomainEvent => ({
  type: 'IpReleased',
  data: { pool: 'p', ip, handle: `h${n}`, node: 'n1', namespace: 'default', pod: `pod-${n}` },
});
const created: DomainEvent = {
  type: 'PoolCreated',
  data: {
    name: 'p',
    cidr: '10.0.0.0/16',
    family: 4,
    gateway: '10.0.0.254',
    labels: { a: '1' },
    nodeSelector: null,
    reserved: ['10.0.0.200'],
    disabled: false,
  },
};
const ranged: DomainEvent = {
  type: 'RangeReserved',
  data: { pool: 'p', namespace: 'default', name: 'web', start: '10.0.1.0', end: '10.0.1.9' },
};

/** A pool that has seen every kind of event, frozen: evolve must build on it without changing any of it. */
const history: DomainEvent[] = [created, allocated(1), allocated(2), released(1), ranged, allocated(3)];

describe('evolve returns a new state and never changes the one it is given', () => {
  it.each<[string, DomainEvent]>([
    ['PoolUpdated', { type: 'PoolUpdated', data: { name: 'p', labels: { b: '2' }, nodeSelector: 'zone=a', disabled: true } }],
    ['IpAllocated', allocated(4)],
    ['IpReleased', released(2)],
    ['RangeReserved', { type: 'RangeReserved', data: { pool: 'p', namespace: 'default', name: 'db', start: '10.0.2.0', end: '10.0.2.3' } }],
    ['RangeReleased', { type: 'RangeReleased', data: { pool: 'p', namespace: 'default', name: 'web' } }],
    ['PoolResized', { type: 'PoolResized', data: { name: 'p', previousCidr: '10.0.0.0/16', cidr: '10.0.0.0/15' } }],
    ['PoolDeleted', { type: 'PoolDeleted', data: { name: 'p' } }],
  ])('pool: %s', (_, event) => {
    const before = folded(PoolAggregate, history);
    const snapshot = JSON.stringify(PoolAggregate.snapshot!.serialize(before));
    const after = PoolAggregate.evolve(deepFreeze(before), recorded(event));
    expect(after).not.toBe(before);
    expect(JSON.stringify(PoolAggregate.snapshot!.serialize(after))).not.toBe(snapshot);
    // fold and evolve agree, from a frozen start too
    expect(PoolAggregate.fold!(before, [recorded(event)])).toEqual(after);
  });

  it('pool with a reuse delay: a release cools an address and a later event expires it, the frozen state untouched', () => {
    const delayed = { ...created, data: { ...created.data, reuseDelaySeconds: 60 } } as DomainEvent;
    const at = (event: DomainEvent, ms: number) => ({ ...recorded(event), recordedAt: new Date(ms) });
    const start = [at(delayed, 0), at(allocated(1), 1), at(released(1), 2)].reduce(
      (state, event) => PoolAggregate.evolve(state, event),
      PoolAggregate.initialState(),
    );
    const frozen = deepFreeze(start);
    expect(PoolAggregate.evolve(frozen, at(released(1), 3)).cooling.size).toBe(1);
    const later = PoolAggregate.evolve(frozen, at(allocated(5), 60_002));
    expect(later.cooling.size).toBe(0);
    expect(PoolAggregate.fold!(frozen, [at(allocated(5), 60_002)])).toEqual(later);
    expect(frozen.cooling.size).toBe(1);
  });

  it('pool: PoolCreated on the initial state, and a fold of a whole history from a frozen state', () => {
    const initial = deepFreeze(PoolAggregate.initialState());
    expect(PoolAggregate.evolve(initial, recorded(created)).exists).toBe(true);
    const start = deepFreeze(folded(PoolAggregate, [created]));
    expect(PoolAggregate.fold!(start, history.slice(1).map(recorded)).holders.size).toBe(2);
  });

  it('node and StatefulSet', () => {
    const node = deepFreeze(folded(NodeAggregate, [{ type: 'NodeLabelsSet', data: { name: 'n1', labels: { zone: 'a' } } }]));
    expect(NodeAggregate.evolve(node, recorded({ type: 'NodeDeleted', data: { name: 'n1' } }))).toEqual({
      name: 'n1',
      exists: false,
      labels: {},
    });
    expect(node).toEqual({ name: 'n1', exists: true, labels: { zone: 'a' } });
    const reservation = {
      namespace: 'default',
      name: 'web',
      replicas: 2,
      ordinalsStart: 0,
      pool: 'p',
      mode: 'continuous' as const,
      range: null,
      reason: null,
    };
    const statefulSet = deepFreeze(folded(StatefulSetAggregate, [{ type: 'StatefulSetReconciled', data: reservation }]));
    expect(
      StatefulSetAggregate.evolve(statefulSet, recorded({ type: 'StatefulSetDeleted', data: { namespace: 'default', name: 'web' } })),
    ).toEqual({
      reservation: null,
    });
    expect(statefulSet.reservation).toEqual(reservation);
  });

  it('refuses an event of no known type rather than fold it as nothing', () => {
    const unknown = { type: 'PoolRenamed', data: {}, version: 1 };
    expect(() => PoolAggregate.evolve(PoolAggregate.initialState(), unknown)).toThrow('no case for event type "PoolRenamed"');
    expect(() => NodeAggregate.evolve(NodeAggregate.initialState(), unknown)).toThrow(/PoolRenamed/);
    expect(() => StatefulSetAggregate.evolve(StatefulSetAggregate.initialState(), unknown)).toThrow(/PoolRenamed/);
  });
});

describe('drafts of drafts (every evolve drafts the state before it)', () => {
  it('give the same pool as one fold, past the point where an overlay is copied whole', () => {
    const events: DomainEvent[] = [created];
    // 3,000 allocations and every other one released: more changes than an overlay carries
    for (let n = 1; n <= 3000; n++) events.push(allocated(n, `10.0.${1 + (n >> 8)}.${n & 255}`));
    for (let n = 2; n <= 3000; n += 2) events.push(released(n, `10.0.${1 + (n >> 8)}.${n & 255}`));
    const oneByOne = folded(PoolAggregate, events);
    const atOnce = PoolAggregate.fold!(PoolAggregate.initialState(), events.map(recorded));
    expect(PoolAggregate.snapshot!.serialize(oneByOne)).toEqual(PoolAggregate.snapshot!.serialize(atOnce));
    expect(oneByOne.holders.size).toBe(1500);
    expect(draftPool(oneByOne).holders.get(oneByOne.byHandle.get('h2999')!)).toMatchObject({ handle: 'h2999' });
  });
});
