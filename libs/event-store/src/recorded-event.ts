export interface NewEvent {
  type: string;
  data: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  schemaVersion?: number;
  eventId?: string;
}

export interface RecordedEvent {
  /** Order of insertion; NOT commit order — use readAll's cursor to follow the global log. */
  position: number;
  transactionId: string;
  streamId: string;
  version: number;
  eventId: string;
  type: string;
  schemaVersion: number;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recordedAt: Date;
}

export const EVENT_COLUMNS = 'position, transaction_id, stream_id, version, event_id, type, schema_version, data, metadata, recorded_at';

export interface EventRow {
  position: string;
  transaction_id: string;
  stream_id: string;
  version: number;
  event_id: string;
  type: string;
  schema_version: number;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

export function toRecordedEvent(row: EventRow): RecordedEvent {
  return {
    // bigint arrives as a string; positions stay far below 2^53.
    position: Number(row.position),
    transactionId: row.transaction_id,
    streamId: row.stream_id,
    version: row.version,
    eventId: row.event_id,
    type: row.type,
    schemaVersion: row.schema_version,
    data: row.data,
    metadata: row.metadata,
    recordedAt: row.recorded_at,
  };
}
