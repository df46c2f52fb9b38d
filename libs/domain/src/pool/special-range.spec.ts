import { canonicalCidr, parseCidr } from '@ipledger/ip';
import { DomainError } from '../errors/domain-error';
import { decideResizePool } from './decide-resize-pool';
import { decideUpdatePool } from './decide-update-pool';
import { PoolAggregate } from './pool.aggregate';
import { parsePoolSpec } from './pool-spec';

const refusal = (cidr: string, allowSpecialRanges?: boolean): string | null => {
  try {
    parsePoolSpec({ name: 'p', cidr, allowSpecialRanges });
    return null;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return `${err.code}: ${err.message}`;
  }
};

const created = (cidr: string, allowSpecialRanges?: boolean) =>
  PoolAggregate.evolve(PoolAggregate.initialState(), {
    type: 'PoolCreated',
    data: parsePoolSpec({ name: 'p', cidr, allowSpecialRanges }),
    version: 1,
  });

describe('special ranges: no pool in or over them unless it allows them', () => {
  it.each([
    ['0.0.0.0/0', 'the whole IPv4 address space'],
    ['::/0', 'the whole IPv6 address space'],
    ['0.0.0.0/8', 'unspecified ("this network") range 0.0.0.0/8'],
    ['0.0.0.0/32', 'unspecified ("this network") range 0.0.0.0/8'],
    ['::/128', 'unspecified range ::/128'],
    ['127.0.0.0/8', 'loopback range 127.0.0.0/8'],
    ['127.0.0.1/32', 'loopback range 127.0.0.0/8'],
    ['::1/128', 'loopback range ::1/128'],
    ['224.0.0.0/4', 'multicast range 224.0.0.0/4'],
    ['239.1.0.0/16', 'multicast range 224.0.0.0/4'],
    ['ff02::/16', 'multicast range ff00::/8'],
    ['169.254.0.0/16', 'link-local range 169.254.0.0/16'],
    ['fe80::/64', 'link-local range fe80::/10'],
    ['::ffff:10.10.0.0/120', 'IPv4-mapped IPv6 range ::ffff:0:0/96'],
    // over a special range: containing one is as bad as lying in it
    ['96.0.0.0/3', 'loopback range 127.0.0.0/8'],
    ['::/64', 'unspecified range ::/128'],
    ['fe00::/7', 'link-local range fe80::/10'],
  ])('refuses %s with SPECIAL_RANGE, naming the range, and takes it with allowSpecialRanges', (cidr, named) => {
    expect(refusal(cidr)).toBe(
      `SPECIAL_RANGE: pool "p": ${canonicalCidr(cidr)} is ${named.startsWith('the whole') ? named : `in or over the ${named}`}, which no pod address belongs in; set allowSpecialRanges: true to make such a pool anyway`,
    );
    expect(refusal(cidr, true)).toBeNull();
    expect(parsePoolSpec({ name: 'p', cidr, allowSpecialRanges: true }).allowSpecialRanges).toBe(true);
  });

  it.each([
    '1.0.0.0/8',
    '126.255.255.0/24',
    '128.0.0.0/8',
    '169.253.0.0/16',
    '223.255.255.0/24',
    '240.0.0.0/8',
    '::2/127',
    'fd00::/8',
    'fec0::/10',
  ])('takes %s, beside a special range, with no override (and records none)', (cidr) => {
    expect(refusal(cidr)).toBeNull();
    expect(parsePoolSpec({ name: 'p', cidr, allowSpecialRanges: false })).not.toHaveProperty('allowSpecialRanges');
  });

  it('refuses a grow into a special range, unless the pool or the same patch allows it', () => {
    const pool = created('126.0.0.0/8');
    expect(() => decideResizePool(pool, 'p', parseCidr('126.0.0.0/7'))).toThrow(
      /126\.0\.0\.0\/7 is in or over the loopback range 127\.0\.0\.0\/8/,
    );
    expect(decideResizePool(pool, 'p', parseCidr('126.0.0.0/7'), true)?.data.cidr).toBe('126.0.0.0/7');
    expect(decideResizePool(created('::ffff:10.0.0.0/120', true), 'p', parseCidr('::ffff:10.0.0.0/112'))?.data.cidr).toBe(
      '::ffff:a00:0/112',
    );
    expect(decideResizePool(pool, 'p', parseCidr('126.0.0.0/9'))?.data.cidr).toBe('126.0.0.0/9');
  });

  it('keeps the override on a pool in a special range: turning it off is refused, elsewhere it is a plain setting', () => {
    expect(() => decideUpdatePool(created('127.0.0.0/8', true), 'p', { allowSpecialRanges: false })).toThrow(/loopback/);
    expect(decideUpdatePool(created('10.0.0.0/8', true), 'p', { allowSpecialRanges: false })?.data).toEqual({
      name: 'p',
      allowSpecialRanges: false,
    });
    expect(decideUpdatePool(created('10.0.0.0/8'), 'p', { allowSpecialRanges: false })).toBeNull();
  });
});
