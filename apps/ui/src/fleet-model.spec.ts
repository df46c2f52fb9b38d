import type { Allocation, Claim, Pool } from './api-types';
import { allocationsIn, claimIn, claimOfHandle, networksOf, poolNetworks, SHARED_SPACE } from './fleet-model';

const pool = (name: string, network: string | null) => ({ name, network }) as Pool;
const held = (ip: string, pool: string, cluster: string) => ({ ip, pool, cluster, handle: `${cluster}-${ip}` }) as Allocation;
const pools = [pool('blue-a', 'blue'), pool('red-a', 'red'), pool('plain', null)];
const networks = poolNetworks(pools);

describe('fleet filters', () => {
  it('lists the shared space first, then the networks by name', () => {
    expect(networksOf([...pools, pool('blue-b', 'blue')])).toEqual([null, 'blue', 'red']);
  });

  it("keeps the allocations of the chosen network (the pool's), by cluster, network and address", () => {
    const all = [
      held('10.0.0.10', 'red-a', 'west'),
      held('10.0.0.9', 'blue-a', 'west'),
      held('10.0.0.10', 'blue-a', 'east'),
      held('10.1.0.1', 'plain', 'east'),
    ];
    const rows = (network: string) => allocationsIn(all, networks, network).map((r) => [r.allocation.cluster, r.network, r.allocation.ip]);
    expect(rows('')).toEqual([
      ['east', 'blue', '10.0.0.10'],
      ['east', null, '10.1.0.1'],
      ['west', 'blue', '10.0.0.9'],
      ['west', 'red', '10.0.0.10'],
    ]);
    expect(rows('red')).toEqual([['west', 'red', '10.0.0.10']]);
    expect(rows(SHARED_SPACE)).toEqual([['east', null, '10.1.0.1']]);
  });

  it("keeps a claim in its own cluster and in each of its references' clusters, and in its addresses' network", () => {
    const vm = {
      name: 'vm-1',
      cluster: 'east',
      items: [held('10.0.0.20', 'blue-a', 'east')],
      references: [{ cluster: 'west' }],
    } as Claim;
    const kept = (cluster: string, network: string) => claimIn(vm, networks, { cluster, network });
    expect([kept('', ''), kept('east', ''), kept('west', 'blue'), kept('north', ''), kept('', 'red'), kept('', SHARED_SPACE)]).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });

  it("names a claim's holding handle's claim", () => {
    expect([claimOfHandle('@vm-1'), claimOfHandle('abc:eth0')]).toEqual(['vm-1', null]);
  });
});
