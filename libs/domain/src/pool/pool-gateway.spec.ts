import { deciderSpecification } from '../../../../test/support/decider-specification';
import { parseIp } from '@ipledger/ip';
import { DomainError } from '../errors/domain-error';
import { planPoolApply } from './pool-apply';
import { parsePoolSpec } from './pool-spec';
import { decideAllocate } from './decide-allocate';
import { decideCreatePool } from './decide-create-pool';
import { poolCounts } from './pool-counts';
import { poolGateway } from './pool-gateway';
import { PoolAggregate } from './pool.aggregate';
import type { PoolState } from './pool-state';

const { evolved } = deciderSpecification(PoolAggregate);
const pool = (cidr: string, gateway?: string | null): PoolState => {
  const state = PoolAggregate.initialState();
  return evolved(state, decideCreatePool(state, parsePoolSpec({ name: 'p', cidr, gateway })));
};

const holder = { node: 'n', namespace: 'default', pod: 'a', podUid: null };

describe('pool gateway', () => {
  it('is canonical text in the spec, and null when not given', () => {
    expect(parsePoolSpec({ name: 'p', cidr: 'fd00::/64', gateway: 'fd00:0::1' }).gateway).toBe('fd00::1');
    expect(parsePoolSpec({ name: 'p', cidr: '10.0.0.0/24' }).gateway).toBeNull();
  });

  it.each([
    ['10.1.0.1', 'outside the CIDR'],
    ['10.0.0.0', 'the network address'],
    ['10.0.0.255', 'the broadcast address'],
    ['fd00::1', 'of another family'],
    ['10.0.0', 'not an address'],
  ])('refuses %s (%s)', (gateway) => {
    expect(() => parsePoolSpec({ name: 'p', cidr: '10.0.0.0/24', gateway })).toThrow(DomainError);
  });

  it('is never handed out, and counts as held back', () => {
    let state = pool('10.0.0.0/30', '10.0.0.1');
    expect(poolGateway(state)).toBe('10.0.0.1');
    expect(poolCounts(state)).toEqual({ capacity: 2n, allocated: 0n, reservedCount: 1n, rangeReservedCount: 0n, free: 1n });
    const first = decideAllocate(state, { handle: 'h1', ...holder });
    expect(first.event?.data.ip).toBe('10.0.0.2');
    state = evolved(state, first.event);
    expect(() => decideAllocate(state, { handle: 'h2', ...holder })).toThrow(expect.objectContaining({ code: 'POOL_EXHAUSTED' }));
    expect(() => decideAllocate(state, { handle: 'h2', ...holder, ip: parseIp('10.0.0.1').value })).toThrow(
      new DomainError('IP_RESERVED', '10.0.0.1 is the gateway of pool "p"'),
    );
  });

  it('reads a PoolCreated recorded before gateways existed as a pool without one', () => {
    const { gateway: _, ...old } = parsePoolSpec({ name: 'p', cidr: '10.0.0.0/24' });
    const state = evolved(PoolAggregate.initialState(), { type: 'PoolCreated', data: old });
    expect(poolGateway(state)).toBeNull();
    expect(poolCounts(state).reservedCount).toBe(0n);
  });

  it('survives a snapshot', () => {
    const state = pool('10.0.0.0/24', '10.0.0.254');
    const copy = PoolAggregate.snapshot!.deserialize(JSON.parse(JSON.stringify(PoolAggregate.snapshot!.serialize(state))))!;
    expect(poolGateway(copy)).toBe('10.0.0.254');
    expect(poolCounts(copy)).toEqual(poolCounts(state));
  });

  it('cannot change on an IPPool apply', () => {
    const current = parsePoolSpec({ name: 'p', cidr: '10.0.0.0/24', gateway: '10.0.0.1' });
    expect(() => planPoolApply(current, { ...current, gateway: '10.0.0.2' })).toThrow(
      new DomainError('INVALID_ARGUMENT', 'pool "p" has gateway 10.0.0.1; it cannot become 10.0.0.2'),
    );
    expect(() => planPoolApply(current, { ...current, gateway: null })).toThrow(/cannot become none/);
  });
});

describe('allocation network', () => {
  it('is recorded with the allocation and kept by the holder', () => {
    let state = pool('10.0.0.0/24');
    const { event } = decideAllocate(state, { handle: 'h1', ...holder, network: 'pods' });
    expect(event?.data.network).toBe('pods');
    state = evolved(state, event);
    expect(state.holders.get(parseIp('10.0.0.1').value)?.network).toBe('pods');
    const { event: plain } = decideAllocate(state, { handle: 'h2', ...holder });
    expect(plain?.data).not.toHaveProperty('network');
  });
});
