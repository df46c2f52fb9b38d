import { prepared } from './prepared';
import { Pool, PoolClient } from 'pg';
import { EVENT_COLUMNS, EventRow, RecordedEvent, toRecordedEvent } from './recorded-event';

/** The events of several streams, each above its own version, in (stream, version) order: one round trip for a batch's loads. */
export async function readStreams(
  db: Pool | PoolClient,
  after: ReadonlyArray<{ streamId: string; version: number }>,
): Promise<RecordedEvent[]> {
  const { rows } = await db.query<EventRow>(
    prepared(
      `select ${EVENT_COLUMNS} from events e join unnest($1::text[], $2::int[]) s (id, after_version)
         on e.stream_id = s.id and e.version > s.after_version
       order by e.stream_id, e.version`,
      [after.map((a) => a.streamId), after.map((a) => a.version)],
    ),
  );
  return rows.map(toRecordedEvent);
}
