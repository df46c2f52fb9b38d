import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import { deciderSpecification } from '../../../../test/support/decider-specification';
import { parseCidr, parseIp } from '@ipledger/ip';
import { parsePoolSpec, type PoolSpecInput } from './pool-spec';
import { decideAllocate } from './decide-allocate';
import { decideCreatePool } from './decide-create-pool';
import { decideRelease } from './decide-release';
import { decideReserveRange } from './decide-reserve-range';
import { decideResizePool } from './decide-resize-pool';
import { poolCounts } from './pool-counts';
import { PoolAggregate } from './pool.aggregate';
import type { PoolState } from './pool-state';

const { evolved, evolvedAt } = deciderSpecification(PoolAggregate);
const pool = (input: Omit<PoolSpecInput, 'name'>) => {
  const empty = PoolAggregate.initialState();
  return evolved(empty, decideCreatePool(empty, parsePoolSpec({ name: 'p', ...input })));
};
const holder = (handle: string) => ({ handle, node: 'n', namespace: 'ns', pod: handle, podUid: null });
const allocate = (state: PoolState, handle: string, ip?: string) =>
  evolved(state, decideAllocate(state, { ...holder(handle), ip: ip === undefined ? undefined : parseIp(ip).value }).event);
const resize = (state: PoolState, cidr: string) => decideResizePool(state, 'p', parseCidr(cidr));
const restore = (state: PoolState) =>
  PoolAggregate.snapshot!.deserialize(JSON.parse(JSON.stringify(PoolAggregate.snapshot!.serialize(state))))!;

describe('a pool grows and shrinks in place', () => {
  it('grows to a network that contains it, recording both CIDRs; the old broadcast address becomes usable', () => {
    let state = pool({ cidr: '10.0.0.0/28' });
    for (let i = 0; i < 14; i++) state = allocate(state, `h${i}`);
    const event = resize(state, '10.0.0.0/27');
    expect(event).toEqual({ type: 'PoolResized', data: { name: 'p', previousCidr: '10.0.0.0/28', cidr: '10.0.0.0/27' } });
    state = evolved(state, event);
    expect(poolCounts(state)).toMatchObject({ capacity: 30n, allocated: 14n, free: 16n });
    expect(decideAllocate(state, holder('next')).ip).toBe(parseIp('10.0.0.15').value);
    expect(restore(state).used.runs()).toEqual(state.used.runs());
  });

  it('keeps a reserved entry on the old broadcast address reserved once it becomes usable', () => {
    const state = pool({ cidr: '10.0.0.0/24', reserved: ['10.0.0.255'] });
    const grown = evolved(state, resize(state, '10.0.0.0/23'));
    expect(grown.reservedSet.has(parseIp('10.0.0.255').value)).toBe(true);
    expect(poolCounts(grown)).toMatchObject({ capacity: 510n, reservedCount: 1n });
  });

  it('answers null for the same CIDR, INVALID_CIDR for the other family and CIDR_NOT_NESTED for a disjoint one', () => {
    const state = pool({ cidr: '10.0.0.0/24' });
    expect(resize(state, '10.0.0.0/24')).toBeNull();
    expect(() => resize(state, 'fd00::/64')).toThrow(expect.objectContaining({ code: 'INVALID_CIDR' }));
    expect(() => resize(state, '10.0.1.0/24')).toThrow(expect.objectContaining({ code: 'CIDR_NOT_NESTED' }));
    expect(() => resize(state, '10.0.1.0/25')).toThrow(expect.objectContaining({ code: 'CIDR_NOT_NESTED' }));
  });

  it.each([
    ['an allocation outside', (s: PoolState) => allocate(s, 'out', '10.0.0.200'), '10.0.0.0/25', '10.0.0.200 is held by handle "out"'],
    ['an allocation on the new broadcast address', (s: PoolState) => allocate(s, 'b', '10.0.0.127'), '10.0.0.0/25', '10.0.0.127 is held'],
    ['the gateway', (s: PoolState) => s, '10.0.0.128/25', '10.0.0.1 is the gateway'],
    [
      'a StatefulSet range',
      (s: PoolState) => evolved(s, decideReserveRange(s, DEFAULT_CLUSTER, 'ns', 'db', 150n)),
      '10.0.0.0/25',
      'range of StatefulSet ns/db',
    ],
  ])('refuses a shrink over %s with POOL_IN_USE naming the first address in the way', (_, setUp, cidr, words) => {
    const state = setUp(pool({ cidr: '10.0.0.0/24', gateway: '10.0.0.1' }));
    expect(() => resize(state, cidr)).toThrow(expect.objectContaining({ code: 'POOL_IN_USE', message: expect.stringContaining(words) }));
  });

  it('refuses a shrink over a reserved entry, also one on an address the old span left out', () => {
    expect(() => resize(pool({ cidr: '10.0.0.0/24', reserved: ['10.0.0.250-10.0.0.255'] }), '10.0.0.0/25')).toThrow(
      expect.objectContaining({ code: 'POOL_IN_USE', message: expect.stringContaining('10.0.0.250 is reserved') }),
    );
    expect(() => resize(pool({ cidr: '10.0.0.0/24', reserved: ['10.0.0.255'] }), '10.0.0.0/25')).toThrow(
      expect.objectContaining({ code: 'POOL_IN_USE', message: expect.stringContaining('10.0.0.255') }),
    );
  });

  it('refuses a grow of a /31 whose new network address is held', () => {
    const state = allocate(pool({ cidr: '10.0.0.0/31' }), 'first');
    expect(state.holders.has(parseIp('10.0.0.0').value)).toBe(true);
    expect(() => resize(state, '10.0.0.0/30')).toThrow(
      expect.objectContaining({ code: 'POOL_IN_USE', message: expect.stringContaining('10.0.0.0 is held') }),
    );
  });

  it('shrinks over a cooling address, which is then forgotten', () => {
    let state = allocate(pool({ cidr: '10.0.0.0/24', reuseDelaySeconds: 60 }), 'out', '10.0.0.200');
    state = evolvedAt(new Date(1000), state, decideRelease(state, 'out'));
    expect(state.cooling.size).toBe(1);
    state = evolvedAt(new Date(2000), state, resize(state, '10.0.0.0/25'));
    expect(state.cooling.size).toBe(0);
    expect(state.used.has(parseIp('10.0.0.200').value)).toBe(false);
    expect(poolCounts(state)).toMatchObject({ capacity: 126n, free: 126n });
  });
});
