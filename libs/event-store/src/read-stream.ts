import { prepared } from './prepared';
import { Pool, PoolClient } from 'pg';
import { EVENT_COLUMNS, EventRow, RecordedEvent, toRecordedEvent } from './recorded-event';

export interface ReadStreamOptions {
  /** at most this many events */
  limit?: number;
  /** only events recorded at or before this instant, to the millisecond the API shows (the stream as it was then) */
  until?: Date;
}

/** The events of one stream with a version above `afterVersion`, in version order. */
export async function readStream(
  db: Pool | PoolClient,
  streamId: string,
  afterVersion = 0,
  options: ReadStreamOptions = {},
): Promise<RecordedEvent[]> {
  const { rows } = await db.query<EventRow>(
    prepared(
      `select ${EVENT_COLUMNS} from events where stream_id = $1 and version > $2 and ($3::timestamptz is null or date_trunc('milliseconds', recorded_at) <= $3)
       order by version limit $4`,
      [streamId, afterVersion, options.until ?? null, options.limit ?? null],
    ),
  );
  return rows.map(toRecordedEvent);
}
