import { deciderSpecification } from '../../../../test/support/decider-specification';
import { parseIp } from '@ipledger/ip';
import { DomainError } from '../errors/domain-error';
import { parsePoolSpec, type PoolSpecInput } from './pool-spec';
import { decideAllocate, type AllocationRequest } from './decide-allocate';
import { decideCreatePool } from './decide-create-pool';
import { decideDeletePool } from './decide-delete-pool';
import { decideRelease } from './decide-release';
import { decideUpdatePool } from './decide-update-pool';
import { poolCounts } from './pool-counts';
import { PoolAggregate } from './pool.aggregate';
import type { PoolState } from './pool-state';

const { evolved: apply } = deciderSpecification(PoolAggregate);

const create = (input: Partial<PoolSpecInput> & { cidr: string }, state = PoolAggregate.initialState()): PoolState =>
  apply(state, decideCreatePool(state, parsePoolSpec({ name: 'p', ...input })));

const ip = (text: string) => parseIp(text).value;

const request = (handle: string, address?: string): AllocationRequest => ({
  handle,
  node: 'node-a',
  namespace: 'default',
  pod: `pod-${handle}`,
  podUid: null,
  ...(address === undefined ? {} : { ip: ip(address) }),
});

/** Allocates and folds (evolve updates the state in place); returns the state and the address text. */
function allocate(state: PoolState, handle: string, address?: string): [PoolState, string] {
  const { event } = decideAllocate(state, request(handle, address));
  if (!event) throw new Error(`no event for ${handle}`);
  return [apply(state, event), event.data.ip];
}

function domainError(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected a DomainError');
}

describe('create', () => {
  it('records the spec in the state', () => {
    const state = create({ cidr: '10.0.0.0/24', labels: { tier: 'gold' }, nodeSelector: 'zone = a', reserved: ['10.0.0.10'] });
    expect(state).toMatchObject({
      name: 'p',
      exists: true,
      cidr: { family: 4, prefixLength: 24 },
      labels: { tier: 'gold' },
      nodeSelector: 'zone=a',
      reserved: ['10.0.0.10'],
      disabled: false,
      usableFirst: ip('10.0.0.1'),
      usableLast: ip('10.0.0.254'),
    });
    expect(poolCounts(state)).toEqual({ capacity: 254n, allocated: 0n, reservedCount: 1n, rangeReservedCount: 0n, free: 253n });
  });

  it.each([
    ['10.0.0.0/24', 254n],
    ['10.0.0.0/30', 2n],
    ['10.0.0.0/31', 2n],
    ['10.0.0.7/32', 1n],
    ['fd00::/64', 2n ** 64n],
    ['fd00::/127', 2n],
    ['fd00::1/128', 1n],
  ])('%s has capacity %s', (cidr, capacity) => {
    expect(poolCounts(create({ cidr }))).toEqual({ capacity, allocated: 0n, reservedCount: 0n, rangeReservedCount: 0n, free: capacity });
  });

  it('clips reserved ranges to the usable span and counts overlaps once', () => {
    const state = create({
      cidr: '10.0.0.0/24',
      // .0 and .255 are not usable; 1-4 and 250-254 remain; 10-20 ∪ 15-25 ∪ 18 is 10-25 (16 addresses).
      reserved: [
        '10.0.0.0-10.0.0.4',
        '10.0.0.250-10.0.0.255',
        '10.0.0.10-10.0.0.20',
        '10.0.0.15-10.0.0.25',
        '10.0.0.18',
        '10.0.0.0',
        '10.0.0.255',
      ],
    });
    expect(poolCounts(state)).toEqual({
      capacity: 254n,
      allocated: 0n,
      reservedCount: 4n + 5n + 16n,
      rangeReservedCount: 0n,
      free: 254n - 25n,
    });
    expect(state.reservedSet.runs()).toEqual([
      [ip('10.0.0.1'), ip('10.0.0.4')],
      [ip('10.0.0.10'), ip('10.0.0.25')],
      [ip('10.0.0.250'), ip('10.0.0.254')],
    ]);
  });

  it('a /31 or /32 reserves nothing implicitly', () => {
    expect(poolCounts(create({ cidr: '10.0.0.0/31', reserved: ['10.0.0.0'] }))).toMatchObject({
      capacity: 2n,
      reservedCount: 1n,
      free: 1n,
    });
    expect(poolCounts(create({ cidr: '10.0.0.7/32', reserved: ['10.0.0.7'] }))).toMatchObject({
      capacity: 1n,
      reservedCount: 1n,
      free: 0n,
    });
  });

  it('refuses a second create with POOL_EXISTS', () => {
    const state = create({ cidr: '10.0.0.0/24' });
    expect(domainError(() => decideCreatePool(state, parsePoolSpec({ name: 'p', cidr: '10.1.0.0/24' }))).code).toBe('POOL_EXISTS');
  });

  it('allows re-creating a deleted pool, starting fresh', () => {
    let [state] = allocate(create({ cidr: '10.0.0.0/24', reserved: ['10.0.0.1'] }), 'h1');
    state = apply(state, decideRelease(state, 'h1'));
    state = apply(state, decideDeletePool(state, 'p'));
    expect(state.exists).toBe(false);
    expect(domainError(() => decideAllocate(state, request('h1'))).code).toBe('POOL_NOT_FOUND');

    state = create({ cidr: '192.168.0.0/30' }, state);
    expect(state.exists).toBe(true);
    expect(poolCounts(state)).toEqual({ capacity: 2n, allocated: 0n, reservedCount: 0n, rangeReservedCount: 0n, free: 2n });
    expect(allocate(state, 'h1')[1]).toBe('192.168.0.1');
  });
});

describe('decideUpdatePool', () => {
  const base = () => create({ cidr: '10.0.0.0/24', labels: { a: '1', b: '2' }, nodeSelector: 'zone=a' });

  it('returns null when nothing changes, labels in another key order included', () => {
    const state = base();
    expect(decideUpdatePool(state, 'p', {})).toBeNull();
    expect(decideUpdatePool(state, 'p', { labels: { b: '2', a: '1' }, nodeSelector: 'zone=a', disabled: false })).toBeNull();
  });

  it('carries only the changed fields, and evolve applies them', () => {
    let state = base();
    const event = decideUpdatePool(state, 'p', { labels: { a: '1', b: '2' }, nodeSelector: null, disabled: true });
    expect(event).toEqual({ type: 'PoolUpdated', data: { name: 'p', nodeSelector: null, disabled: true } });

    const labelsOnly = decideUpdatePool(state, 'p', { labels: { a: '1' }, disabled: false });
    expect(labelsOnly).toEqual({ type: 'PoolUpdated', data: { name: 'p', labels: { a: '1' } } });

    state = apply(state, event);
    expect(state).toMatchObject({ labels: { a: '1', b: '2' }, nodeSelector: null, disabled: true });
    expect(decideUpdatePool(state, 'p', { nodeSelector: null, disabled: true })).toBeNull();
  });

  it('refuses a missing or deleted pool with POOL_NOT_FOUND', () => {
    expect(domainError(() => decideUpdatePool(PoolAggregate.initialState(), 'p', { disabled: true })).code).toBe('POOL_NOT_FOUND');
    const state = base();
    const deleted = apply(state, decideDeletePool(state, 'p'));
    expect(domainError(() => decideUpdatePool(deleted, 'p', {})).code).toBe('POOL_NOT_FOUND');
  });
});

describe('decideDeletePool', () => {
  it('refuses with POOL_IN_USE while an address is held, succeeds after release', () => {
    const [state] = allocate(create({ cidr: '10.0.0.0/24' }), 'h1');
    const error = domainError(() => decideDeletePool(state, 'p'));
    expect(error.code).toBe('POOL_IN_USE');
    expect(error.message).toContain('1 allocated');
    const released = apply(state, decideRelease(state, 'h1'));
    expect(decideDeletePool(released, 'p')).toEqual({ type: 'PoolDeleted', data: { name: 'p' } });
  });

  it('refuses a missing pool with POOL_NOT_FOUND', () => {
    expect(domainError(() => decideDeletePool(PoolAggregate.initialState(), 'p')).code).toBe('POOL_NOT_FOUND');
  });
});

describe('decideAllocate', () => {
  it('hands out the lowest free address, skipping reserved ones', () => {
    let state = create({ cidr: '10.0.0.0/24', reserved: ['10.0.0.1-10.0.0.2', '10.0.0.4'] });
    const { ip: value, event } = decideAllocate(state, { ...request('h1'), podUid: 'uid-1' });
    expect(value).toBe(ip('10.0.0.3'));
    expect(event).toEqual({
      type: 'IpAllocated',
      data: {
        pool: 'p',
        ip: '10.0.0.3',
        family: 4,
        handle: 'h1',
        node: 'node-a',
        namespace: 'default',
        pod: 'pod-h1',
        podUid: 'uid-1',
        owner: 'pod',
      },
    });
    state = apply(state, event);
    expect(state.holders.get(ip('10.0.0.3'))).toEqual({
      handle: 'h1',
      node: 'node-a',
      namespace: 'default',
      pod: 'pod-h1',
      podUid: 'uid-1',
      owner: 'pod',
    });
    expect(poolCounts(state)).toEqual({ capacity: 254n, allocated: 1n, reservedCount: 3n, rangeReservedCount: 0n, free: 250n });
    expect(allocate(state, 'h2')[1]).toBe('10.0.0.5');
  });

  it('never hands out network or broadcast, then reports POOL_EXHAUSTED', () => {
    let state = create({ cidr: '10.0.0.8/29' });
    const handed: string[] = [];
    for (let i = 0; i < 6; i++) {
      let address: string;
      [state, address] = allocate(state, `h${i}`);
      handed.push(address);
    }
    expect(handed).toEqual(['10.0.0.9', '10.0.0.10', '10.0.0.11', '10.0.0.12', '10.0.0.13', '10.0.0.14']);
    expect(poolCounts(state)).toMatchObject({ allocated: 6n, free: 0n });
    expect(domainError(() => decideAllocate(state, request('h6'))).code).toBe('POOL_EXHAUSTED');
  });

  it('a /31 hands out both addresses, a /32 its only one, an IPv6 pool starts at its first address', () => {
    let state = create({ cidr: '10.0.0.0/31' });
    let address: string;
    [state, address] = allocate(state, 'h0');
    expect(address).toBe('10.0.0.0');
    [state, address] = allocate(state, 'h1');
    expect(address).toBe('10.0.0.1');
    expect(domainError(() => decideAllocate(state, request('h2'))).code).toBe('POOL_EXHAUSTED');

    expect(allocate(create({ cidr: '10.0.0.7/32' }), 'h0')[1]).toBe('10.0.0.7');
    const [v6, first] = allocate(create({ cidr: 'fd00::/64' }), 'h0');
    expect(first).toBe('fd00::');
    expect(poolCounts(v6)).toMatchObject({ allocated: 1n, free: 2n ** 64n - 1n });
  });

  it('gives a handle that already holds an address the same one, with no event', () => {
    let [state] = allocate(create({ cidr: '10.0.0.0/24' }), 'h1', '10.0.0.40');
    expect(decideAllocate(state, request('h1'))).toEqual({ ip: ip('10.0.0.40'), event: null, claim: null });
    // Even asking for another address, or once the pool is disabled.
    expect(decideAllocate(state, request('h1', '10.0.0.41'))).toEqual({ ip: ip('10.0.0.40'), event: null, claim: null });
    state = apply(state, decideUpdatePool(state, 'p', { disabled: true }));
    expect(decideAllocate(state, request('h1'))).toEqual({ ip: ip('10.0.0.40'), event: null, claim: null });
  });

  it('refuses new handles with POOL_DISABLED', () => {
    const state = create({ cidr: '10.0.0.0/24', disabled: true });
    expect(domainError(() => decideAllocate(state, request('h1'))).code).toBe('POOL_DISABLED');
    expect(domainError(() => decideAllocate(state, request('h1', '10.0.0.5'))).code).toBe('POOL_DISABLED');
  });

  describe('a specific address', () => {
    const pool = () => create({ cidr: '10.0.0.0/24', reserved: ['10.0.0.100-10.0.0.110'] });

    it('is handed out when free, and lowest-first then skips it', () => {
      const [state, address] = allocate(pool(), 'h1', '10.0.0.1');
      expect(address).toBe('10.0.0.1');
      expect(allocate(state, 'h2')[1]).toBe('10.0.0.2');
    });

    it('is refused with IP_IN_USE naming the holder', () => {
      const [state] = allocate(pool(), 'holder-1', '10.0.0.7');
      const error = domainError(() => decideAllocate(state, request('h2', '10.0.0.7')));
      expect(error.code).toBe('IP_IN_USE');
      expect(error.message).toContain('10.0.0.7');
      expect(error.message).toContain('"holder-1"');
    });

    it('is refused with IP_RESERVED', () => {
      expect(domainError(() => decideAllocate(pool(), request('h1', '10.0.0.105'))).code).toBe('IP_RESERVED');
    });

    it.each(['10.0.0.0', '10.0.0.255'])('%s is refused with IP_NOT_IN_POOL', (address) => {
      const error = domainError(() => decideAllocate(pool(), request('h1', address)));
      expect(error.code).toBe('IP_NOT_IN_POOL');
      expect(error.message).toContain(address);
    });
  });
});

describe('decideRelease', () => {
  it('returns null for an unknown handle or a pool that does not exist', () => {
    const [state] = allocate(create({ cidr: '10.0.0.0/24' }), 'h1');
    expect(decideRelease(state, 'nobody')).toBeNull();
    expect(decideRelease(PoolAggregate.initialState(), 'h1')).toBeNull();
  });

  it('frees the address, which is then handed out again', () => {
    let state = create({ cidr: '10.0.0.0/24' });
    [state] = allocate(state, 'h1');
    [state] = allocate(state, 'h2');
    const event = decideRelease(state, 'h1');
    expect(event).toEqual({
      type: 'IpReleased',
      data: { pool: 'p', ip: '10.0.0.1', handle: 'h1', node: 'node-a', namespace: 'default', pod: 'pod-h1' },
    });
    state = apply(state, event);
    expect(decideRelease(state, 'h1')).toBeNull();
    expect(poolCounts(state)).toMatchObject({ allocated: 1n, free: 253n });
    expect(allocate(state, 'h3')[1]).toBe('10.0.0.1');
  });

  it('releases for a pod uid only what was given to that uid, or recorded without one, and records the reason', () => {
    let state = create({ cidr: '10.0.0.0/24' });
    state = apply(state, decideAllocate(state, { ...request('old'), podUid: 'uid-old' }).event);
    state = apply(state, decideAllocate(state, { ...request('new'), podUid: 'uid-new' }).event);
    [state] = allocate(state, 'unknown');
    const reason = { cause: 'pod-deleted' as const, podUid: 'uid-old' };
    expect(decideRelease(state, 'new', { podUid: 'uid-old', reason })).toBeNull();
    expect(decideRelease(state, 'old', { podUid: 'uid-old', reason })?.data).toMatchObject({ handle: 'old', reason });
    expect(decideRelease(state, 'unknown', { podUid: 'uid-old', reason })?.data).toMatchObject({ handle: 'unknown', reason });
  });
});
