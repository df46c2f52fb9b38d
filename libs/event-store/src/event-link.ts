import { createHash } from 'node:crypto';

/**
 * An event as the audit chain covers it: every column, in the text form PostgreSQL gives them
 * (read-chain-events.ts), so the sealer and the CLI hash the very same bytes.
 */
export interface ChainEvent {
  position: string;
  /** not hashed: with position, the feed's order and the sealer's cursor */
  transactionId: string;
  streamId: string;
  version: number;
  type: string;
  schemaVersion: number;
  /** `data::text`: jsonb's own text form (keys ordered, no insignificant space) */
  data: string;
  metadata: string;
  eventId: string;
  /** microseconds since the epoch, as a decimal string */
  recordedAtMicros: string;
}

/** The hash of the empty chain: what the first link chains to, and the head of a log with no events. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * The one definition of a link of the global chain: SHA-256 over the previous link and every column
 * of the event. A JSON array delimits and escapes each field, so two different events never give
 * the same bytes; the leading tag names the format, should it ever change.
 */
export function linkHash(previous: string, event: ChainEvent): string {
  const fields = [
    'ipledger-link-v1',
    previous,
    event.streamId,
    event.version,
    event.position,
    event.type,
    event.schemaVersion,
    event.data,
    event.metadata,
    event.eventId,
    event.recordedAtMicros,
  ];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}
