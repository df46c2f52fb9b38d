import { Pool, PoolClient } from 'pg';
import { EVENT_COLUMNS, EventRow, RecordedEvent, toRecordedEvent } from './recorded-event';

export interface ReadAllOptions {
  /** Cursor from a previous `next`; null or absent = from the beginning. */
  after?: string | null;
  limit: number;
  streamId?: string;
  types?: string[];
  /** Only events recorded at or before this instant. */
  until?: Date;
  /**
   * Everything this transaction's snapshot sees, with no horizon: only for a reader inside one
   * REPEATABLE READ transaction that compares the log with tables read in the same snapshot.
   */
  wholeSnapshot?: boolean;
  /** Only events a snapshot (`pg_current_snapshot()` as text) did not see: what was committed since it was taken. */
  notVisibleIn?: string;
}

export interface ReadAllResult {
  events: RecordedEvent[];
  /** Where to continue; the input cursor when nothing was returned, so a poller can ask again. */
  next: string | null;
}

export class InvalidCursorError extends Error {
  constructor(readonly cursor: string) {
    super(`invalid event log cursor "${cursor}"`);
    this.name = 'InvalidCursorError';
  }
}

const CURSOR = /^(\d+):(\d+)$/;
const MAX_BIGINT = 2n ** 63n - 1n;

/**
 * Reads the global log in commit-safe order. Positions come from a sequence taken before commit,
 * so a transaction can commit after a later one and `position > last` would skip its events.
 * Instead we stop below the oldest transaction still running (snapshot xmin), order by
 * (transaction_id, position), and carry that pair as the cursor: everything below the horizon has
 * finished, so nothing can appear behind the cursor later.
 */
export async function readAll(db: Pool | PoolClient, options: ReadAllOptions): Promise<ReadAllResult> {
  const { after = null, limit, streamId, types, until, wholeSnapshot = false, notVisibleIn } = options;
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be an integer >= 1, got ${limit}`);

  const params: unknown[] = [];
  const param = (value: unknown): string => `$${params.push(value)}`;
  const where = [wholeSnapshot ? 'TRUE' : 'transaction_id < pg_snapshot_xmin(pg_current_snapshot())'];
  if (after !== null) {
    const [transactionId, position] = decodeCursor(after);
    where.push(`(transaction_id, position) > (${param(transactionId)}::xid8, ${param(position)}::bigint)`);
  }
  if (streamId !== undefined) where.push(`stream_id = ${param(streamId)}`);
  if (types !== undefined) where.push(`type = any(${param(types)}::text[])`);
  if (until !== undefined) where.push(`recorded_at <= ${param(until)}`);
  if (notVisibleIn !== undefined) {
    // everything below the snapshot's xmin had ended when it was taken: the index bounds the scan
    const snapshot = param(notVisibleIn);
    where.push(
      `transaction_id >= pg_snapshot_xmin(${snapshot}::pg_snapshot) and not pg_visible_in_snapshot(transaction_id, ${snapshot}::pg_snapshot)`,
    );
  }

  const { rows } = await db.query<EventRow>(
    `select ${EVENT_COLUMNS} from events where ${where.join(' and ')}
     order by transaction_id, position limit ${param(limit)}`,
    params,
  );
  const events = rows.map(toRecordedEvent);
  const last = rows.at(-1);
  return { events, next: last ? encodeCursor(last.transaction_id, last.position) : after };
}

function encodeCursor(transactionId: string, position: string): string {
  return Buffer.from(`${transactionId}:${position}`).toString('base64url');
}

function decodeCursor(cursor: string): [string, string] {
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  // Node's decoder skips characters outside the alphabet, so insist the cursor re-encodes to itself.
  if (!match || encodeCursor(match[1], match[2]) !== cursor) throw new InvalidCursorError(cursor);
  const [, transactionId, position] = match;
  if (BigInt(transactionId) > MAX_BIGINT || BigInt(position) > MAX_BIGINT) throw new InvalidCursorError(cursor);
  return [transactionId, position];
}
