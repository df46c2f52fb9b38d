import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import { parseIp } from '@ipledger/ip';
import { deciderSpecification } from '../../../../test/support/decider-specification';
import { InvalidInputError } from '../errors/domain-error';
import { planPoolApply } from './pool-apply';
import { parsePoolSpec } from './pool-spec';
import { decideAllocate } from './decide-allocate';
import { decideCreatePool } from './decide-create-pool';
import { decideRelease } from './decide-release';
import { decideReserveRange } from './decide-reserve-range';
import { PoolAggregate } from './pool.aggregate';

const { evolved: apply } = deciderSpecification(PoolAggregate);
const holder = { handle: 'h1', node: 'n', namespace: 'default', pod: 'p', podUid: null };

describe("a pool's isolated network", () => {
  const created = (network?: string) => {
    const state = PoolAggregate.initialState();
    return apply(state, decideCreatePool(state, parsePoolSpec({ name: 'p', cidr: '10.0.0.0/24', network })));
  };

  it('is on the events of its addresses, the space they are unique in; the shared space has none', () => {
    const blue = created('blue');
    const { event } = decideAllocate(blue, { ...holder, ip: parseIp('10.0.0.5').value });
    expect(event?.data).toMatchObject({ ip: '10.0.0.5', poolNetwork: 'blue' });
    expect(decideRelease(apply(blue, event), 'h1')?.data.poolNetwork).toBe('blue');
    expect(decideReserveRange(blue, DEFAULT_CLUSTER, 'default', 'db', 2n)?.data.poolNetwork).toBe('blue');
    const shared = created();
    expect(decideAllocate(shared, holder).event?.data).not.toHaveProperty('poolNetwork');
  });

  it('survives a snapshot, so events after it still name the network', () => {
    const restored = PoolAggregate.snapshot!.deserialize(JSON.parse(JSON.stringify(PoolAggregate.snapshot!.serialize(created('blue')))))!;
    expect(restored.network).toBe('blue');
    expect(decideAllocate(restored, holder).event?.data.poolNetwork).toBe('blue');
  });

  it('is a CNI network name, absent or null for the shared space', () => {
    expect(parsePoolSpec({ name: 'p', cidr: '10.0.0.0/24', network: 'tenant-a.vrf_1' }).network).toBe('tenant-a.vrf_1');
    expect(parsePoolSpec({ name: 'p', cidr: '10.0.0.0/24', network: null })).not.toHaveProperty('network');
    for (const bad of ['', '-a', 'ns/name', 'a b', 'x'.repeat(254)]) {
      expect(() => parsePoolSpec({ name: 'p', cidr: '10.0.0.0/24', network: bad })).toThrow(InvalidInputError);
    }
  });

  it('cannot change through an IPPool object', () => {
    const spec = (network?: string) => parsePoolSpec({ name: 'p', cidr: '10.0.0.0/24', network });
    expect(() => planPoolApply(spec('blue'), spec('red'))).toThrow(/is in network "blue"; it cannot move to network "red"/);
    expect(() => planPoolApply(spec(), spec('red'))).toThrow(/the shared space/);
    expect(() => planPoolApply(spec('blue'), spec())).toThrow(InvalidInputError);
    expect(planPoolApply({ ...spec(), network: null }, spec())).toHaveProperty('patch');
  });
});
