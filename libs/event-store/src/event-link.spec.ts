import { GENESIS_HASH, linkHash, type ChainEvent } from './event-link';

const event: ChainEvent = {
  position: '42',
  transactionId: '1007',
  streamId: 'pool-p',
  version: 3,
  type: 'IpAllocated',
  schemaVersion: 2,
  data: '{"ip": "10.0.0.1", "pool": "p"}',
  metadata: '{"actor": "admin"}',
  eventId: '6f1c0d0e-8a51-4a8e-9d0e-0c3f1b7e2a11',
  recordedAtMicros: '1790000000123456',
};

describe('linkHash: a link of the audit chain', () => {
  const base = linkHash(GENESIS_HASH, event);

  it('is a lowercase SHA-256 hex digest, the same for the same input', () => {
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(linkHash(GENESIS_HASH, { ...event })).toBe(base);
  });

  it('covers the previous link', () => {
    expect(linkHash('1'.repeat(64), event)).not.toBe(base);
  });

  const changes: Array<[keyof ChainEvent, ChainEvent[keyof ChainEvent]]> = [
    ['position', '43'],
    ['streamId', 'pool-q'],
    ['version', 4],
    ['type', 'IpReleased'],
    ['schemaVersion', 1],
    ['data', '{"ip": "10.0.0.2", "pool": "p"}'],
    ['metadata', '{"actor": "other"}'],
    ['eventId', '6f1c0d0e-8a51-4a8e-9d0e-0c3f1b7e2a12'],
    ['recordedAtMicros', '1790000000123457'],
  ];
  it.each(changes)('covers %s', (column, value) => {
    expect(linkHash(GENESIS_HASH, { ...event, [column]: value })).not.toBe(base);
  });

  it('keeps fields apart: moving text from one column into the next changes the link', () => {
    expect(linkHash(GENESIS_HASH, { ...event, streamId: 'pool-p3', version: 3 })).not.toBe(
      linkHash(GENESIS_HASH, { ...event, streamId: 'pool-p', version: 33 }),
    );
    expect(linkHash(GENESIS_HASH, { ...event, data: '{}', metadata: '{"a": 1}' })).not.toBe(
      linkHash(GENESIS_HASH, { ...event, data: '{"a": 1}', metadata: '{}' }),
    );
  });

  it('does not depend on the transaction id, which only orders the feed', () => {
    expect(linkHash(GENESIS_HASH, { ...event, transactionId: '9' })).toBe(base);
  });
});
