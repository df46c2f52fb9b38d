import { schemaVersionOf } from './event-versions';
import { upcast } from './upcast';

describe('upcast', () => {
  it('gives a v1 IpReleased (no holder recorded) the v2 shape with explicit nulls', () => {
    const v1 = { type: 'IpReleased', schemaVersion: 1, data: { pool: 'p', ip: '10.0.0.1', handle: 'h' } };
    expect(upcast(v1)).toEqual({
      type: 'IpReleased',
      schemaVersion: 2,
      data: { pool: 'p', ip: '10.0.0.1', handle: 'h', node: null, namespace: null, pod: null },
    });
    expect(v1.schemaVersion).toBe(1);
  });

  it('leaves current events as they are, and writes IpReleased as v2', () => {
    const v2 = {
      type: 'IpReleased',
      schemaVersion: 2,
      data: { pool: 'p', ip: '10.0.0.1', handle: 'h', node: 'n', namespace: 'ns', pod: 'x' },
    };
    expect(upcast(v2)).toBe(v2);
    expect(schemaVersionOf('IpReleased')).toBe(2);
    expect(schemaVersionOf('IpAllocated')).toBe(1);
  });
});
