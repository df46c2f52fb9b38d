import { DomainError } from '../errors/domain-error';
import { planPoolApply } from './pool-apply';
import { parsePoolSpec } from './pool-spec';

describe('planPoolApply (an IPPool object as the whole desired pool)', () => {
  const current = parsePoolSpec({ name: 'rack-1', cidr: '10.0.0.0/24', reserved: ['10.0.0.1'], labels: { a: '1' } });

  it('creates a missing pool', () => {
    expect(planPoolApply(null, current)).toEqual({ create: current });
  });

  it('patches labels, nodeSelector and disabled of an existing pool', () => {
    const desired = parsePoolSpec({ name: 'rack-1', cidr: '10.0.0.0/24', reserved: ['10.0.0.1'], nodeSelector: 'zone=a', disabled: true });
    expect(planPoolApply(current, desired)).toEqual({ patch: { labels: {}, nodeSelector: 'zone=a', disabled: true } });
  });

  it('refuses a new cidr or reserved list, naming both', () => {
    const moved = parsePoolSpec({ name: 'rack-1', cidr: '10.1.0.0/24', reserved: ['10.1.0.1'] });
    expect(() => planPoolApply(current, moved)).toThrow(
      new DomainError('INVALID_ARGUMENT', 'pool "rack-1" has cidr 10.0.0.0/24; it cannot become 10.1.0.0/24'),
    );
    const reserved = parsePoolSpec({ name: 'rack-1', cidr: '10.0.0.0/24', reserved: ['10.0.0.2'] });
    expect(() => planPoolApply(current, reserved)).toThrow(
      /reserves \[10.0.0.1\]; reserved addresses cannot change \(asked: \[10.0.0.2\]\)/,
    );
  });
});
