import { deciderSpecification } from '../../../../test/support/decider-specification';
import { parseIp } from '@ipledger/ip';
import { DomainError } from '../errors/domain-error';
import { parsePoolSpec } from './pool-spec';
import { decideAdopt } from './decide-adopt';
import { decideAllocate, type AllocationRequest } from './decide-allocate';
import { decideCreatePool } from './decide-create-pool';
import { decideUpdatePool } from './decide-update-pool';
import { PoolAggregate } from './pool.aggregate';

const { evolved: apply } = deciderSpecification(PoolAggregate);
const ip = (text: string) => parseIp(text).value;
const holder = (handle: string): AllocationRequest => ({
  handle,
  node: 'n1',
  namespace: 'shop',
  pod: handle,
  podUid: `uid-${handle}`,
  owner: 'pod',
});

function pool() {
  const empty = PoolAggregate.initialState();
  return apply(
    empty,
    decideCreatePool(empty, parsePoolSpec({ name: 'p', cidr: '10.0.0.0/24', gateway: '10.0.0.1', reserved: ['10.0.0.9'] })),
  );
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return (err as DomainError).code;
  }
  throw new Error('expected a refusal');
}

describe('decideAdopt', () => {
  it('gives the running pod its own address, adopted, and nothing again to the same handle', () => {
    const { event } = decideAdopt(pool(), { ...holder('a'), ip: ip('10.0.0.50') });
    expect(event?.data).toMatchObject({ ip: '10.0.0.50', handle: 'a', podUid: 'uid-a', owner: 'pod', adopted: true });
    const state = apply(pool(), event);
    expect(decideAdopt(state, { ...holder('a'), ip: ip('10.0.0.50') }).event).toBeNull();
    expect(state.holders.get(ip('10.0.0.50'))).toMatchObject({ adopted: true });
  });

  it('never gives an address another handle holds, nor the gateway or a reserved one', () => {
    const state = apply(pool(), decideAllocate(pool(), { ...holder('b'), ip: ip('10.0.0.60') }).event);
    expect(code(() => decideAdopt(state, { ...holder('a'), ip: ip('10.0.0.60') }))).toBe('IP_IN_USE');
    expect(code(() => decideAdopt(state, { ...holder('a'), ip: ip('10.0.0.1') }))).toBe('IP_RESERVED');
    expect(code(() => decideAdopt(state, { ...holder('a'), ip: ip('10.0.0.9') }))).toBe('IP_RESERVED');
  });

  it('adopts in a disabled pool, which hands out nothing new', () => {
    const disabled = apply(pool(), decideUpdatePool(pool(), 'p', { disabled: true }));
    expect(code(() => decideAllocate(disabled, holder('c')))).toBe('POOL_DISABLED');
    expect(decideAdopt(disabled, { ...holder('c'), ip: ip('10.0.0.70') }).event?.data).toMatchObject({ adopted: true });
  });
});
