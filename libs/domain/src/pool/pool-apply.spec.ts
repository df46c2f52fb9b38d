import { planPoolApply } from './pool-apply';
import { parsePoolSpec } from './pool-spec';

describe('planPoolApply (an IPPool object as the whole desired pool)', () => {
  const current = parsePoolSpec({ name: 'rack-1', cidr: '10.0.0.0/24', reserved: ['10.0.0.1'], labels: { a: '1' } });

  it('creates a missing pool', () => {
    expect(planPoolApply(null, current)).toEqual({ create: current });
  });

  it('patches labels, nodeSelector, clusterSelector and disabled of an existing pool', () => {
    const desired = parsePoolSpec({
      name: 'rack-1',
      cidr: '10.0.0.0/24',
      reserved: ['10.0.0.1'],
      nodeSelector: 'zone=a',
      clusterSelector: 'region = east',
      disabled: true,
    });
    expect(planPoolApply(current, desired)).toEqual({
      patch: {
        labels: {},
        nodeSelector: 'zone=a',
        clusterSelector: 'region=east',
        disabled: true,
        reuseDelaySeconds: 0,
        allowSpecialRanges: false,
      },
    });
  });

  it('passes a new cidr and reuseDelaySeconds on to the pool, whose own rules decide a resize', () => {
    const grown = parsePoolSpec({ name: 'rack-1', cidr: '10.0.0.0/23', reserved: ['10.0.0.1'], reuseDelaySeconds: 60 });
    expect(planPoolApply(current, grown)).toEqual({
      patch: {
        labels: {},
        nodeSelector: null,
        clusterSelector: null,
        disabled: false,
        reuseDelaySeconds: 60,
        allowSpecialRanges: false,
        cidr: '10.0.0.0/23',
      },
    });
  });

  it('refuses blocks added, removed or changed, naming both', () => {
    const withBlocks = (extra: { blockSize?: number; blockAffinity?: 'strict' | 'borrow'; blockReleaseSeconds?: number }) =>
      parsePoolSpec({ name: 'rack-1', cidr: '10.0.0.0/24', reserved: ['10.0.0.1'], ...extra });
    const blocked = withBlocks({ blockSize: 26 });
    expect(planPoolApply(blocked, withBlocks({ blockSize: 26, blockAffinity: 'borrow', blockReleaseSeconds: 300 }))).toEqual({
      patch: { labels: {}, nodeSelector: null, clusterSelector: null, disabled: false, reuseDelaySeconds: 0, allowSpecialRanges: false },
    });
    expect(() => planPoolApply(current, blocked)).toThrow(
      /has blocks none; its blocks cannot change \(asked: blockSize 26, borrow, 300s to release\)/,
    );
    expect(() => planPoolApply(blocked, withBlocks({}))).toThrow(/its blocks cannot change \(asked: none\)/);
    expect(() => planPoolApply(blocked, withBlocks({ blockSize: 27 }))).toThrow(/asked: blockSize 27/);
    expect(() => planPoolApply(blocked, withBlocks({ blockSize: 26, blockAffinity: 'strict' }))).toThrow(/asked: blockSize 26, strict/);
    expect(() => planPoolApply(blocked, withBlocks({ blockSize: 26, blockReleaseSeconds: 0 }))).toThrow(/asked: blockSize 26, borrow, 0s/);
  });

  it('refuses a new reserved list, naming both', () => {
    const reserved = parsePoolSpec({ name: 'rack-1', cidr: '10.0.0.0/24', reserved: ['10.0.0.2'] });
    expect(() => planPoolApply(current, reserved)).toThrow(
      /reserves \[10.0.0.1\]; reserved addresses cannot change \(asked: \[10.0.0.2\]\)/,
    );
  });
});
