import { prepared } from './prepared';
import { Pool, PoolClient } from 'pg';
import { EVENT_COLUMNS, EventRow, RecordedEvent, toRecordedEvent } from './recorded-event';

/** The events of one stream with a version above `afterVersion`, in version order. */
export async function readStream(db: Pool | PoolClient, streamId: string, afterVersion = 0): Promise<RecordedEvent[]> {
  const { rows } = await db.query<EventRow>(
    prepared(`select ${EVENT_COLUMNS} from events where stream_id = $1 and version > $2 order by version`, [streamId, afterVersion]),
  );
  return rows.map(toRecordedEvent);
}
