import type { RecordedEvent } from './api-types';
import { poolEventLine } from './pool-event-line';

const event = (type: string, data: Record<string, unknown>): RecordedEvent => ({
  position: 1,
  version: 1,
  type,
  data,
  metadata: {},
  recordedAt: '2026-12-02T10:00:00.000Z',
});

describe("the pool history's line for each event", () => {
  it('says whether a resize grew or shrank the pool, from which CIDR to which', () => {
    expect(poolEventLine(event('PoolResized', { name: 'p', previousCidr: '10.0.0.0/24', cidr: '10.0.0.0/23' }))).toBe(
      'grown from 10.0.0.0/24 to 10.0.0.0/23',
    );
    expect(poolEventLine(event('PoolResized', { name: 'p', previousCidr: 'fd00::/64', cidr: 'fd00::/96' }))).toBe(
      'shrunk from fd00::/64 to fd00::/96',
    );
  });

  it('names a block and its node when it is claimed or released, and why it went back', () => {
    expect(poolEventLine(event('BlockClaimed', { pool: 'p', cidr: '10.0.0.64/26', node: 'worker-2' }))).toBe(
      'block 10.0.0.64/26 claimed by worker-2',
    );
    const released = { pool: 'p', cidr: '10.0.0.64/26', node: 'worker-2', emptiedAt: null };
    expect(poolEventLine(event('BlockReleased', { ...released, reason: 'idle' }))).toBe('block 10.0.0.64/26 of worker-2 released (empty)');
    expect(poolEventLine(event('BlockReleased', { ...released, reason: 'node-deleted' }))).toBe(
      'block 10.0.0.64/26 of worker-2 released (node deleted)',
    );
  });

  it("names a range's owner: an ip-set's Deployment or ReplicaSet, else its StatefulSet", () => {
    const range = { pool: 'p', namespace: 'shop', start: '10.0.0.20', end: '10.0.0.22' };
    expect(poolEventLine(event('RangeReserved', { ...range, name: 'Deployment:web' }))).toBe(
      '10.0.0.20–10.0.0.22 for ip-set of Deployment shop/web',
    );
    expect(poolEventLine(event('RangeReleased', { pool: 'p', namespace: 'shop', name: 'ReplicaSet:batch' }))).toBe(
      'range of ip-set of ReplicaSet shop/batch released',
    );
    expect(poolEventLine(event('RangeReserved', { ...range, name: 'db' }))).toBe('10.0.0.20–10.0.0.22 for StatefulSet shop/db');
  });

  it('keeps the lines of the other events', () => {
    expect(poolEventLine(event('IpAllocated', { ip: '10.0.0.5', namespace: 'ns', pod: 'web-0', node: 'n1' }))).toBe(
      '10.0.0.5 → ns/web-0 on n1 in cluster default',
    );
    expect(poolEventLine(event('PoolUpdated', { name: 'p', disabled: true }))).toBe('disabled: true');
  });

  it("names the cluster of an allocation and a release, the default cluster's too (its events name none)", () => {
    const held = { pool: 'p', ip: '10.0.0.5', handle: 'h', node: 'worker-1', namespace: 'shop', pod: 'web-1' };
    expect(poolEventLine(event('IpAllocated', { ...held, cluster: 'east' }))).toBe('10.0.0.5 → shop/web-1 on worker-1 in cluster east');
    expect(poolEventLine(event('IpReleased', held))).toBe('10.0.0.5 released (h) in cluster default');
  });
});
