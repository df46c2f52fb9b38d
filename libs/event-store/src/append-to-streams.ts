import { prepared } from './prepared';
import { randomUUID } from 'node:crypto';
import { DatabaseError, Pool, PoolClient } from 'pg';
import { ConcurrencyError, PreconditionFailedError } from './concurrency-error';
import { EVENT_COLUMNS, EventRow, NewEvent, RecordedEvent, toRecordedEvent } from './recorded-event';

export interface StreamAppend {
  streamId: string;
  /** The stream's current version as the caller saw it; 0 = the stream must not exist yet. */
  expectedVersion: number;
  /** May be empty: the stream's version is then only checked, which guards a decision that read it. */
  events: NewEvent[];
}

export interface AppendOptions {
  /**
   * Runs first in the transaction, before the version checks and the insert: a fence that may
   * lock a row of its own and throw to refuse the append (rolling everything back).
   */
  beforeWrite?: (client: PoolClient) => Promise<void>;
  /** Runs after the insert, in the same transaction (inline projections); a throw rolls everything back. */
  inTransaction?: (client: PoolClient, recorded: RecordedEvent[]) => Promise<void>;
  /**
   * Inline projections as data-modifying CTEs over the rows inserted (a relation `appended`, with
   * the events' columns), run in the insert's own statement. The append is then one statement in
   * a transaction of its own: one round trip instead of begin, insert, projections and commit.
   * Not with `beforeWrite`, `inTransaction` or a version guard (an append with no events).
   */
  sameStatement?: string;
  /**
   * A condition the insert's rows are selected under, over `$2` (`value` as jsonb): what the
   * caller decided on without reading it, checked in the insert's own statement instead of a read
   * before it. When it does not hold, nothing is written and PreconditionFailedError is thrown.
   */
  precondition?: { condition: string; value: unknown };
}

/** SQLSTATE of an append past a stream's head (migrations/016_contiguous_versions.sql). */
export const STREAM_GAP = 'IL001';

/** An events row as the insert's one JSON parameter carries it. */
interface Row {
  stream_id: string;
  version: number;
  event_id: string;
  type: string;
  schema_version: number;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/**
 * Appends to several streams in one transaction: all of them or none. Throws ConcurrencyError when
 * a stream is not at its expected version, including when a concurrent append wins the race.
 * Returns the recorded events in append order.
 */
export async function appendToStreams(pool: Pool, appends: StreamAppend[], options: AppendOptions = {}): Promise<RecordedEvent[]> {
  const rows = toRows(appends);
  if (options.sameStatement !== undefined) return appendInOneStatement(pool, rows, appends, options);
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    await options.beforeWrite?.(client);
    // Versions are contiguous, so a stream that moved past its expected version already holds
    // version expected+1 and the insert clashes on (stream_id, version); one shorter than expected
    // (a failover to a standby that missed commits) is refused by the events_contiguous trigger
    // (migration 016). Either way the insert alone tells. Only streams appended
    // with no events (a pure version guard) need the explicit check: one round trip saved on the
    // hot path.
    const guards = appends.filter((append) => append.events.length === 0);
    const conflict = guards.length > 0 ? await findConflict(client, guards) : undefined;
    if (conflict) throw conflict;
    const recorded = await insert(client, rows, appends, options);
    await options.inTransaction?.(client, recorded);
    // COMMIT of a transaction that already failed (an inTransaction error it swallowed) rolls back
    // without raising: only the command tag tells.
    const { command } = await client.query('commit');
    if (command !== 'COMMIT') throw new Error('append rolled back: a statement inside its transaction failed');
    return recorded;
  } catch (error) {
    broken = await rollback(client);
    // The version check passed but a concurrent append committed the same (stream, version)
    // first: re-read to name the stream that moved.
    if (!broken && (isVersionClash(error) || isGap(error))) throw (await findConflict(client, appends)) ?? error;
    throw error;
  } finally {
    client.release(broken);
  }
}

async function appendInOneStatement(pool: Pool, rows: Row[], appends: StreamAppend[], options: AppendOptions): Promise<RecordedEvent[]> {
  if (options.beforeWrite || options.inTransaction || appends.some((append) => append.events.length === 0)) {
    throw new Error('sameStatement appends take no beforeWrite, no inTransaction and no version guard');
  }
  // a client of its own, not pool.query: like a transaction, the statement is not cancelled with a request
  const client = await pool.connect();
  try {
    return await insert(client, rows, appends, options);
  } catch (error) {
    // the statement's sub-statements run in no set order: a read model's unique key may catch a
    // decision made on a stale stream before the version clash does, and the moved stream is the cause
    if (isUniqueViolation(error) || isGap(error)) throw (await findConflict(client, appends)) ?? error;
    throw error;
  } finally {
    client.release();
  }
}

function toRows(appends: StreamAppend[]): Row[] {
  const seen = new Set<string>();
  const rows = appends.flatMap(({ streamId, expectedVersion, events }) => {
    if (seen.has(streamId)) throw new Error(`stream ${streamId} appears twice in one append`);
    if (!Number.isInteger(expectedVersion) || expectedVersion < 0) {
      throw new RangeError(`expected version of ${streamId} must be an integer >= 0, got ${expectedVersion}`);
    }
    seen.add(streamId);
    return events.map((event, index) => ({
      stream_id: streamId,
      version: expectedVersion + index + 1,
      event_id: event.eventId ?? randomUUID(),
      type: event.type,
      schema_version: event.schemaVersion ?? 1,
      data: event.data,
      metadata: event.metadata ?? {},
    }));
  });
  // Insert in stream-id order so that concurrent multi-stream appends take their unique-index
  // locks in the same order and wait for each other instead of deadlocking.
  return rows.sort((a, b) => (a.stream_id < b.stream_id ? -1 : a.stream_id > b.stream_id ? 1 : 0));
}

async function findConflict(client: PoolClient, appends: StreamAppend[]): Promise<ConcurrencyError | undefined> {
  const { rows } = await client.query<{ stream_id: string; version: number }>(
    prepared('select stream_id, max(version) as version from events where stream_id = any($1::text[]) group by stream_id', [
      appends.map((append) => append.streamId),
    ]),
  );
  const current = new Map(rows.map((row) => [row.stream_id, row.version]));
  for (const { streamId, expectedVersion } of appends) {
    const actual = current.get(streamId) ?? 0;
    if (actual !== expectedVersion) return new ConcurrencyError(streamId, expectedVersion, actual);
  }
  return undefined;
}

/**
 * The rows travel as one JSON parameter, not as arrays: PostgreSQL plans a statement over arrays
 * for the length of each call's arrays and so re-plans it on every call (planning cost more than
 * the insert), while a JSON row set costs the same to every call and gets one generic plan.
 */
const insertStatement = (condition?: string) => `insert into events (stream_id, version, event_id, type, schema_version, data, metadata)
     select stream_id, version, event_id, type, schema_version, data, metadata
       from jsonb_to_recordset($1::jsonb) AS r (stream_id text, version int, event_id uuid, type text, schema_version int, data jsonb, metadata jsonb)
     ${condition ? `where ${condition}` : ''}
     returning ${EVENT_COLUMNS}`;

/** The insert, alone or with CTEs of the same statement (see AppendOptions.sameStatement), under the precondition if any. */
async function insert(
  client: PoolClient,
  rows: Row[],
  appends: StreamAppend[],
  { sameStatement, precondition }: Pick<AppendOptions, 'sameStatement' | 'precondition'>,
): Promise<RecordedEvent[]> {
  const statement = insertStatement(precondition?.condition);
  const text = sameStatement ? `with appended as (${statement}), ${sameStatement} select ${EVENT_COLUMNS} from appended` : statement;
  const values = precondition ? [JSON.stringify(rows), JSON.stringify(precondition.value)] : [JSON.stringify(rows)];
  const { rows: inserted } = await client.query<EventRow>(prepared(text, values));
  if (precondition && inserted.length === 0 && rows.length > 0) {
    const first = appends.find((append) => append.events.length > 0)!;
    throw new PreconditionFailedError(first.streamId, first.expectedVersion);
  }
  const appendOrder = new Map(appends.map((append, index) => [append.streamId, index]));
  return inserted.map(toRecordedEvent).sort((a, b) => appendOrder.get(a.streamId)! - appendOrder.get(b.streamId)! || a.version - b.version);
}

function isUniqueViolation(error: unknown): error is DatabaseError {
  return error instanceof DatabaseError && error.code === '23505';
}

/** events_contiguous (migration 016): the stream is shorter than the append expected. */
function isGap(error: unknown): boolean {
  return error instanceof DatabaseError && error.code === STREAM_GAP;
}

function isVersionClash(error: unknown): boolean {
  return isUniqueViolation(error) && error.constraint === 'events_stream_version_unique';
}

/** Returns the rollback's own failure: the connection is then unusable and must not go back to the pool. */
async function rollback(client: PoolClient): Promise<Error | undefined> {
  try {
    await client.query('rollback');
    return undefined;
  } catch (error) {
    return error as Error;
  }
}
