import { filterEligible, type PoolCandidate } from './pool-eligibility';

const pool = (name: string, extra: Partial<PoolCandidate> = {}): PoolCandidate & { rank: number } => ({
  name,
  family: 4,
  disabled: false,
  nodeSelector: null,
  rank: name.length,
  ...extra,
});

const east = { name: 'east', labels: { region: 'east' } };

describe('filterEligible', () => {
  it('keeps candidate order and returns the candidates themselves', () => {
    const candidates = [
      pool('c'),
      pool('a', { disabled: true }),
      pool('b', { nodeSelector: 'zone=a' }),
      pool('d', { family: 6 }),
      pool('e'),
    ];
    const { eligible, excluded } = filterEligible(candidates, { zone: 'a' }, [4, 6], east);
    expect(eligible.map((p) => p.name)).toEqual(['c', 'b', 'd', 'e']);
    expect(eligible[0]).toBe(candidates[0]);
    expect(excluded).toEqual([{ pool: 'a', reason: 'disabled' }]);
  });

  it('keeps the order of exclusions', () => {
    const { eligible, excluded } = filterEligible(
      [pool('z', { disabled: true }), pool('y', { family: 6 }), pool('x', { disabled: true })],
      {},
      [4],
      east,
    );
    expect(eligible).toEqual([]);
    expect(excluded.map((e) => e.pool)).toEqual(['z', 'y', 'x']);
  });

  const v4: (4 | 6)[] = [4];
  it.each([
    ['an IPv6 pool for IPv4', pool('p', { family: 6 }), v4, 'family: pool is IPv6, request wants IPv4'],
    ['an IPv4 pool for IPv6', pool('p'), [6] as (4 | 6)[], 'family: pool is IPv4, request wants IPv6'],
    [
      'family before anything else',
      pool('p', { family: 6, disabled: true, nodeSelector: 'zone=b' }),
      v4,
      'family: pool is IPv6, request wants IPv4',
    ],
    ['disabled before nodeSelector', pool('p', { disabled: true, nodeSelector: 'zone=b' }), v4, 'disabled'],
    ['a selector the node fails', pool('p', { nodeSelector: 'zone=b' }), v4, 'nodeSelector "zone=b" does not match the node\'s labels'],
    [
      'a cluster selector the cluster fails',
      pool('p', { clusterSelector: 'region in (west,north)' }),
      v4,
      'clusterSelector "region in (west,north)" does not match the labels of cluster "east"',
    ],
    [
      'nodeSelector before clusterSelector',
      pool('p', { nodeSelector: 'zone=b', clusterSelector: 'region=west' }),
      v4,
      'nodeSelector "zone=b" does not match the node\'s labels',
    ],
    [
      'a missing label, dual stack',
      pool('p', { nodeSelector: 'gpu' }),
      [4, 6] as (4 | 6)[],
      'nodeSelector "gpu" does not match the node\'s labels',
    ],
  ])('excludes %s', (_, candidate, families, reason) => {
    expect(filterEligible([candidate], { zone: 'a' }, families, east)).toEqual({ eligible: [], excluded: [{ pool: 'p', reason }] });
  });

  it('a null selector matches any node, a matching selector its node', () => {
    const candidates = [pool('any'), pool('zone', { nodeSelector: 'zone in (a,b),!gpu' })];
    expect(filterEligible(candidates, {}, [4], east).eligible.map((p) => p.name)).toEqual(['any']);
    expect(filterEligible(candidates, { zone: 'b' }, [4], east).eligible.map((p) => p.name)).toEqual(['any', 'zone']);
  });

  it('a null cluster selector serves every cluster, a set one the clusters whose labels match it (one never labelled has none)', () => {
    const candidates = [pool('any'), pool('east', { clusterSelector: 'region=east' })];
    expect(filterEligible(candidates, {}, [4], east).eligible.map((p) => p.name)).toEqual(['any', 'east']);
    expect(filterEligible(candidates, {}, [4], { name: 'default', labels: {} }).eligible.map((p) => p.name)).toEqual(['any']);
  });
});
