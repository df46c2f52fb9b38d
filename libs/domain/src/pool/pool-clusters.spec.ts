import { deciderSpecification } from '../../../../test/support/decider-specification';
import { parsePoolSpec } from './pool-spec';
import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import { decideAllocate, type AllocationRequest } from './decide-allocate';
import { decideCreatePool } from './decide-create-pool';
import { decideRelease } from './decide-release';
import { decideReleaseRange } from './decide-release-range';
import { decideReserveRange } from './decide-reserve-range';
import { PoolAggregate } from './pool.aggregate';

const { evolved: apply } = deciderSpecification(PoolAggregate);
const holder = (cluster?: string): AllocationRequest => ({
  handle: 'abc:eth0',
  ...(cluster ? { cluster } : {}),
  node: 'worker-1',
  namespace: 'shop',
  pod: 'web-0',
  podUid: null,
  owner: 'external',
});

function pool() {
  const empty = PoolAggregate.initialState();
  return apply(empty, decideCreatePool(empty, parsePoolSpec({ name: 'p', cidr: '10.0.0.0/24' })));
}

describe('a pool: a handle is one within its cluster', () => {
  const plain = decideAllocate(pool(), holder());
  const withDefault = apply(pool(), plain.event);
  const east = decideAllocate(withDefault, holder('east'));
  const both = apply(withDefault, east.event);

  it("gives the same handle of another cluster an address of its own, recording the cluster (left out for default's)", () => {
    expect(plain.event?.data).not.toHaveProperty('cluster');
    expect(east.event?.data).toMatchObject({ handle: 'abc:eth0', cluster: 'east' });
    expect(east.ip).not.toBe(plain.ip);
    // a retry in either cluster gets that cluster's address, appending nothing
    expect(decideAllocate(both, holder('east'))).toMatchObject({ ip: east.ip, event: null });
    expect(decideAllocate(both, holder())).toMatchObject({ ip: plain.ip, event: null });
  });

  it("releases one cluster's handle and leaves the other's held", () => {
    const released = decideRelease(both, 'abc:eth0', {}, 'east');
    expect(released?.data).toMatchObject({ handle: 'abc:eth0', cluster: 'east' });
    const after = apply(both, released);
    expect(decideRelease(after, 'abc:eth0', {}, 'east')).toBeNull();
    expect(decideAllocate(after, holder())).toMatchObject({ ip: plain.ip, event: null });
  });

  it('keeps the cluster through a snapshot', () => {
    const { snapshot } = PoolAggregate;
    const loaded = snapshot!.deserialize(JSON.parse(JSON.stringify(snapshot!.serialize(both))))!;
    expect(decideAllocate(loaded, holder('east'))).toMatchObject({ ip: east.ip, event: null });
    expect(decideRelease(loaded, 'abc:eth0', {}, 'west')).toBeNull();
  });
});

describe("a pool: a StatefulSet's range is one within its cluster", () => {
  const plain = decideReserveRange(pool(), DEFAULT_CLUSTER, 'shop', 'db', 3n)!;
  const withDefault = apply(pool(), plain);
  const east = decideReserveRange(withDefault, 'east', 'shop', 'db', 2n)!;
  const both = apply(withDefault, east);

  it("reserves the same StatefulSet of another cluster a range of its own, recording the cluster (left out for default's)", () => {
    expect(plain.data).not.toHaveProperty('cluster');
    expect(east.data).toMatchObject({ namespace: 'shop', name: 'db', cluster: 'east', start: '10.0.0.4', end: '10.0.0.5' });
    expect(decideReleaseRange(both, 'east', 'shop', 'db')?.data).toMatchObject({ cluster: 'east' });
    expect(decideReleaseRange(both, 'west', 'shop', 'db')).toBeNull();
  });

  it('keeps the cluster through a snapshot', () => {
    const { snapshot } = PoolAggregate;
    const loaded = snapshot!.deserialize(JSON.parse(JSON.stringify(snapshot!.serialize(both))))!;
    expect([...loaded.ranges]).toEqual([...both.ranges]);
  });
});

describe("a pool with blocks: a block is a node's of one cluster", () => {
  const blocked = () => {
    const empty = PoolAggregate.initialState();
    return apply(empty, decideCreatePool(empty, parsePoolSpec({ name: 'b', cidr: '10.0.0.0/24', blockSize: 28 })));
  };
  const on = (handle: string, cluster?: string): AllocationRequest => ({ ...holder(cluster), handle });
  const place = (state: ReturnType<typeof blocked>, request: AllocationRequest) => {
    const decided = decideAllocate(state, request);
    return { decided, state: apply(apply(state, decided.claim), decided.event) };
  };
  const first = place(blocked(), on('a:eth0'));
  const east = place(first.state, on('b:eth0', 'east'));

  it("claims another cluster's node of the same name a block of its own, recording the cluster (left out for default's)", () => {
    expect(first.decided.claim?.data).not.toHaveProperty('cluster');
    expect(east.decided.claim?.data).toMatchObject({ cidr: '10.0.0.16/28', node: 'worker-1', cluster: 'east' });
    expect(east.decided.event?.data).not.toHaveProperty('borrowed');
  });

  it('keeps the cluster of a block through a snapshot', () => {
    const { snapshot } = PoolAggregate;
    const loaded = snapshot!.deserialize(JSON.parse(JSON.stringify(snapshot!.serialize(east.state))))!;
    expect([...loaded.claimed.values()].map((block) => [block.node, block.cluster, block.used, block.borrowed])).toEqual([
      ['worker-1', 'default', 1, 0],
      ['worker-1', 'east', 1, 0],
    ]);
    // east's next address comes from east's own block
    expect(decideAllocate(loaded, on('c:eth0', 'east'))).toMatchObject({ claim: null, event: { data: { ip: '10.0.0.17' } } });
  });
});
