import type { RecordedEvent } from './recorded-event';

/**
 * The export format of the event log (`ipledger export` / `ipledger import`, docs/operations.md,
 * "Backup and restore"): JSON lines, a header first, then one event a line in the feed's order, each
 * with its link of the audit chain. A line's `data` and `metadata` are the stored jsonb's own text,
 * written as they are: the importer lets PostgreSQL parse them, so no number passes through a
 * JavaScript double.
 */
export const LOG_FORMAT = 'ipledger-log';
export const LOG_FORMAT_VERSION = 1;

export interface LogHeader {
  format: typeof LOG_FORMAT;
  version: typeof LOG_FORMAT_VERSION;
  /** the last migration the source database had applied */
  schema: string;
  exportedAt: string;
  /** event lines that follow */
  events: number;
  /** the stored head of the audit chain when the export began (lines past it carry links computed by the exporter) */
  head: { count: number; hash: string; at: string | null };
  /** `--from`: the position of the first event line; null for the whole log */
  from: number | null;
  /** the link number of the first event line, and the hash of the link before it (the genesis hash for the whole log) */
  first: { seq: number; previous: string };
}

/** One event line: every column of the event (the source's transaction id is not chained), and its link. */
export interface ExportedEvent extends Omit<RecordedEvent, 'recordedAt'> {
  seq: number;
  /** RFC 3339 in UTC, to the microsecond */
  recordedAt: string;
  /** the per-stream hash of migration 005, kept for events recorded before migration 010; null after */
  legacyHash: string | null;
  /** the link's hash, lowercase hex */
  link: string;
  /** when the source sealed the link; null for a link the exporter computed (not sealed yet) */
  sealedAt: string | null;
}

/** An event line, encoded: `data` and `metadata` are the jsonb text as stored, the rest JSON. */
export interface EventLineFields extends Omit<ExportedEvent, 'data' | 'metadata' | 'position'> {
  position: string;
  data: string;
  metadata: string;
}

export function eventLine(e: EventLineFields): string {
  const text = (value: string | null) => (value === null ? 'null' : JSON.stringify(value));
  return (
    `{"seq":${e.seq},"position":${e.position},"transactionId":"${e.transactionId}","streamId":${text(e.streamId)},` +
    `"version":${e.version},"eventId":"${e.eventId}","type":${text(e.type)},"schemaVersion":${e.schemaVersion},` +
    `"data":${e.data},"metadata":${e.metadata},"recordedAt":"${e.recordedAt}","legacyHash":${text(e.legacyHash)},` +
    `"link":"${e.link}","sealedAt":${text(e.sealedAt)}}`
  );
}

const HASH = /^[0-9a-f]{64}$/;
const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const whole = (min: number, max: number) => (v: unknown) => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;
const text = (v: unknown) => typeof v === 'string' && v.length > 0;
const object = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
const nullOr = (test: (v: unknown) => boolean) => (v: unknown) => v === null || test(v);
const matches = (pattern: RegExp) => (v: unknown) => typeof v === 'string' && pattern.test(v);
const INT32 = 2 ** 31 - 1;

/** Each field of an event line and what it must be, said in the refusal. */
const EVENT_FIELDS: Record<keyof ExportedEvent, [(v: unknown) => boolean, string]> = {
  seq: [whole(1, Number.MAX_SAFE_INTEGER), 'a whole number from 1'],
  position: [whole(1, Number.MAX_SAFE_INTEGER), 'a whole number from 1'],
  transactionId: [matches(/^\d{1,20}$/), 'a transaction id in decimal'],
  streamId: [text, 'a non-empty string'],
  version: [whole(1, INT32), 'a whole number from 1'],
  eventId: [matches(UUID), 'a lowercase UUID'],
  type: [text, 'a non-empty string'],
  schemaVersion: [whole(1, INT32), 'a whole number from 1'],
  data: [object, 'a JSON object'],
  metadata: [object, 'a JSON object'],
  recordedAt: [matches(INSTANT), 'an RFC 3339 UTC instant to the microsecond'],
  legacyHash: [nullOr(matches(HASH)), 'null or 64 lowercase hex digits'],
  link: [matches(HASH), '64 lowercase hex digits'],
  sealedAt: [nullOr(matches(INSTANT)), 'null or an RFC 3339 UTC instant to the microsecond'],
};

const HEADER_FIELDS: Record<keyof LogHeader, [(v: unknown) => boolean, string]> = {
  format: [(v) => v === LOG_FORMAT, `"${LOG_FORMAT}"`],
  version: [(v) => v === LOG_FORMAT_VERSION, `${LOG_FORMAT_VERSION} (the format this release reads)`],
  schema: [text, 'a migration name'],
  exportedAt: [text, 'an instant'],
  events: [whole(0, Number.MAX_SAFE_INTEGER), 'a whole number'],
  head: [
    (v) => object(v) && whole(0, Number.MAX_SAFE_INTEGER)((v as LogHeader['head']).count) && matches(HASH)((v as LogHeader['head']).hash),
    '{count, hash, at}',
  ],
  from: [nullOr(whole(1, Number.MAX_SAFE_INTEGER)), 'null or a position'],
  first: [
    (v) =>
      object(v) && whole(1, Number.MAX_SAFE_INTEGER)((v as LogHeader['first']).seq) && matches(HASH)((v as LogHeader['first']).previous),
    '{seq, previous}',
  ],
};

/** A line read back as `T`, or why it is not one: every field present and well formed, no other field. */
function parseLine<T>(line: string, fields: Record<string, [(v: unknown) => boolean, string]>, what: string): T | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return `not JSON (${(err as Error).message})`;
  }
  if (!object(value)) return `not a JSON object: not ${what}`;
  const record = value as Record<string, unknown>;
  for (const [name, [valid, expected]] of Object.entries(fields)) {
    if (!(name in record)) return `"${name}" is missing: not ${what}`;
    if (!valid(record[name])) return `"${name}" must be ${expected}, not ${JSON.stringify(record[name])}`;
  }
  const unknown = Object.keys(record).find((name) => !(name in fields));
  return unknown === undefined ? (record as T) : `"${unknown}" is not a field of ${what}`;
}

export const parseLogHeader = (line: string) => parseLine<LogHeader>(line, HEADER_FIELDS, `an ${LOG_FORMAT} header`);
export const parseEventLine = (line: string) => parseLine<ExportedEvent>(line, EVENT_FIELDS, 'an event line');
