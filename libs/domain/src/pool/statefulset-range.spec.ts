import { DEFAULT_CLUSTER } from '../cluster/cluster-name';
import { deciderSpecification } from '../../../../test/support/decider-specification';
import fc from 'fast-check';
import { formatIp, parseIp } from '@ipledger/ip';
import type { StatefulSetRef } from '../events';
import { findFreeRange, isFreeSpan, largestFreeRun } from './free-range-finder';
import { parsePoolSpec, type PoolSpecInput } from './pool-spec';
import { decideAllocate } from './decide-allocate';
import { decideCreatePool } from './decide-create-pool';
import { decideDeletePool } from './decide-delete-pool';
import { decideRelease } from './decide-release';
import { decideReleaseRange } from './decide-release-range';
import { decideReserveRange } from './decide-reserve-range';
import { decideResizeRange } from './decide-resize-range';
import { poolCounts } from './pool-counts';
import { PoolAggregate } from './pool.aggregate';

const { evolved: apply } = deciderSpecification(PoolAggregate);
const create = (input: Partial<PoolSpecInput> & { cidr: string }) =>
  apply(PoolAggregate.initialState(), decideCreatePool(PoolAggregate.initialState(), parsePoolSpec({ name: 'p', ...input })));
const ip = (text: string) => parseIp(text).value;
const text = (value: bigint) => formatIp({ family: 4, value });

const pod = (handle: string, statefulSet?: StatefulSetRef, address?: string) => ({
  handle,
  node: 'n',
  namespace: 'default',
  pod: handle,
  podUid: null,
  ...(statefulSet ? { statefulSet } : {}),
  ...(address ? { ip: ip(address) } : {}),
});
const web = (ordinal: number): StatefulSetRef => ({ namespace: 'default', name: 'web', ordinal });

describe('StatefulSet ranges in a pool', () => {
  it('reserves the first free run, skipping network, reserved and allocated addresses', () => {
    let pool = create({ cidr: '10.0.0.0/24', reserved: ['10.0.0.5'] });
    pool = apply(pool, decideAllocate(pool, pod('a')).event); // takes 10.0.0.1
    const event = decideReserveRange(pool, DEFAULT_CLUSTER, 'default', 'web', 4n);
    expect(event?.data).toEqual({ pool: 'p', namespace: 'default', name: 'web', start: '10.0.0.6', end: '10.0.0.9' });
    pool = apply(pool, event);
    expect(poolCounts(pool)).toMatchObject({ allocated: 1n, reservedCount: 5n, rangeReservedCount: 4n, free: 254n - 6n });
    // dynamic allocations go around the range
    expect(decideAllocate(pool, pod('b')).event?.data.ip).toBe('10.0.0.2');
  });

  it('gives a range address to its own StatefulSet pods only, and keeps it reserved after release', () => {
    let pool = create({ cidr: '10.0.0.0/28' });
    pool = apply(pool, decideReserveRange(pool, DEFAULT_CLUSTER, 'default', 'web', 3n));
    expect(() => decideAllocate(pool, pod('x', undefined, '10.0.0.2'))).toThrow(/reserved for the pods of StatefulSet default\/web/);
    expect(() => decideAllocate(pool, pod('y', { namespace: 'other', name: 'web', ordinal: 1 }, '10.0.0.2'))).toThrow(
      /IP_RESERVED|reserved/,
    );
    const { event } = decideAllocate(pool, pod('web-1', web(1), '10.0.0.2'));
    expect(event?.data).toMatchObject({ ip: '10.0.0.2', statefulSet: web(1) });
    pool = apply(pool, event);
    expect(poolCounts(pool)).toMatchObject({ allocated: 1n, reservedCount: 2n });
    pool = apply(pool, decideRelease(pool, 'web-1'));
    expect(poolCounts(pool)).toMatchObject({ allocated: 0n, reservedCount: 3n });
    expect(findFreeRange(pool, 1n)).toEqual({ start: ip('10.0.0.4'), end: ip('10.0.0.4') });
  });

  it('grows in place when the next addresses are free, not when they are taken; shrinks always', () => {
    let pool = create({ cidr: '10.0.0.0/28' });
    pool = apply(pool, decideReserveRange(pool, DEFAULT_CLUSTER, 'default', 'web', 2n)); // .1-.2
    pool = apply(pool, decideResizeRange(pool, DEFAULT_CLUSTER, 'default', 'web', 4n)); // .1-.4
    expect(pool.ranges.get('default/web')).toEqual({ start: ip('10.0.0.1'), end: ip('10.0.0.4') });
    pool = apply(pool, decideAllocate(pool, pod('other')).event); // .5
    expect(decideResizeRange(pool, DEFAULT_CLUSTER, 'default', 'web', 5n)).toBeNull();
    expect(decideResizeRange(pool, DEFAULT_CLUSTER, 'default', 'web', 4n)).toBeNull();

    // a pod above the new end keeps its address until released; then it is free
    pool = apply(pool, decideAllocate(pool, pod('web-3', web(3), '10.0.0.4')).event);
    pool = apply(pool, decideResizeRange(pool, DEFAULT_CLUSTER, 'default', 'web', 2n));
    expect(poolCounts(pool)).toMatchObject({ allocated: 2n, reservedCount: 2n });
    pool = apply(pool, decideRelease(pool, 'web-3'));
    expect(isFreeSpan(pool, ip('10.0.0.3'), ip('10.0.0.4'))).toBe(true);
    expect(poolCounts(pool)).toMatchObject({ allocated: 1n, reservedCount: 2n });
  });

  it('releases the range, and refuses to delete the pool while a range is held', () => {
    let pool = create({ cidr: '10.0.0.0/28' });
    pool = apply(pool, decideReserveRange(pool, DEFAULT_CLUSTER, 'default', 'web', 3n));
    expect(() => decideDeletePool(pool, 'p')).toThrow(/range\(s\) of StatefulSet default\/web; delete/);
    pool = apply(pool, decideReleaseRange(pool, DEFAULT_CLUSTER, 'default', 'web'));
    expect(decideReleaseRange(pool, DEFAULT_CLUSTER, 'default', 'web')).toBeNull();
    expect(poolCounts(pool).reservedCount).toBe(0n);
    expect(decideDeletePool(pool, 'p').type).toBe('PoolDeleted');
  });

  it('refuses, as a race to decide again on fresh state, a reservation for a range already there', () => {
    const pool = create({ cidr: '10.0.0.0/28' });
    const reserved = apply(pool, decideReserveRange(pool, DEFAULT_CLUSTER, 'default', 'web', 2n));
    const refusal = { code: 'CONCURRENCY_CONFLICT', message: 'StatefulSet default/web already has a range: resize it' };
    expect(() => decideReserveRange(reserved, DEFAULT_CLUSTER, 'default', 'web', 3n)).toThrow(expect.objectContaining(refusal));
  });

  it('refuses, as a race to decide again on fresh state, a resize of a range not there', () => {
    const pool = create({ cidr: '10.0.0.0/28' });
    const refusal = { code: 'CONCURRENCY_CONFLICT', message: 'StatefulSet default/web has no range in pool "p"' };
    expect(() => decideResizeRange(pool, DEFAULT_CLUSTER, 'default', 'web', 3n)).toThrow(expect.objectContaining(refusal));
  });

  it('says null when no run is long enough, and reports the largest', () => {
    let pool = create({ cidr: '10.0.0.0/29', reserved: ['10.0.0.4'] }); // usable .1-.6, free runs .1-.3 and .5-.6
    expect(decideReserveRange(pool, DEFAULT_CLUSTER, 'default', 'web', 4n)).toBeNull();
    expect(largestFreeRun(pool)).toEqual({ start: ip('10.0.0.1'), length: 3n });
    pool = apply(pool, decideReserveRange(pool, DEFAULT_CLUSTER, 'default', 'web', 2n));
    expect(pool.ranges.get('default/web')).toEqual({ start: ip('10.0.0.1'), end: ip('10.0.0.2') });
  });

  it('finds ranges in an IPv6 /64 without walking it', () => {
    let pool = create({ cidr: 'fd00::/64' });
    pool = apply(pool, decideAllocate(pool, pod('a')).event);
    const range = findFreeRange(pool, 1n << 40n);
    expect(range).toEqual({ start: ip('fd00::1'), end: ip('fd00::1') + (1n << 40n) - 1n });
  });

  it('keeps ranges and their holders across a snapshot', () => {
    let pool = create({ cidr: '10.0.0.0/28' });
    pool = apply(pool, decideReserveRange(pool, DEFAULT_CLUSTER, 'default', 'web', 3n));
    pool = apply(pool, decideAllocate(pool, pod('web-0', web(0), '10.0.0.1')).event);
    const restored = PoolAggregate.snapshot!.deserialize(JSON.parse(JSON.stringify(PoolAggregate.snapshot!.serialize(pool))))!;
    expect(restored.ranges).toEqual(pool.ranges);
    expect(restored.holders.get(ip('10.0.0.1'))?.statefulSet).toEqual(web(0));
    expect(poolCounts(restored)).toEqual(poolCounts(pool));
    expect(restored.used.runs()).toEqual(pool.used.runs());
  });

  it('finds the first fit that a brute-force scan finds, whatever is reserved, ranged or held', () => {
    // a /27: usable .1-.30; random reserved addresses, random allocations, one random range
    const address = fc.integer({ min: 1, max: 30 });
    fc.assert(
      fc.property(
        fc.uniqueArray(address, { maxLength: 6 }),
        fc.uniqueArray(address, { maxLength: 10 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 12 }),
        (reserved, held, firstRange, length) => {
          let pool = create({ cidr: '10.0.0.0/27', reserved: reserved.map((i) => text(ip('10.0.0.0') + BigInt(i))) });
          const first = decideReserveRange(pool, DEFAULT_CLUSTER, 'default', 'first', BigInt(firstRange));
          pool = apply(pool, first);
          const taken = new Set<number>(reserved);
          if (first)
            for (let i = Number(ip(first.data.start) - ip('10.0.0.0')); i <= Number(ip(first.data.end) - ip('10.0.0.0')); i++) taken.add(i);
          for (const [n, i] of held.entries()) {
            if (taken.has(i)) continue;
            pool = apply(pool, decideAllocate(pool, pod(`h${n}`, undefined, text(ip('10.0.0.0') + BigInt(i)))).event);
            taken.add(i);
          }
          let expected: number | null = null;
          for (let s = 1; s + length - 1 <= 30 && expected === null; s++) {
            if (Array.from({ length }, (_, k) => s + k).every((a) => !taken.has(a))) expected = s;
          }
          const found = findFreeRange(pool, BigInt(length));
          expect(found === null ? null : Number(found.start - ip('10.0.0.0'))).toBe(expected);
        },
      ),
    );
  });
});
