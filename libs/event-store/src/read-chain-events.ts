import type { Pool, PoolClient } from 'pg';
import type { ChainEvent } from './event-link';
import { prepared } from './prepared';

/** Where the chain continues in the feed: the (transaction_id, position) of its last event. */
export interface FeedPoint {
  transactionId: string;
  position: string;
}

/** The columns of `events` as a ChainEvent names them, each in the text form the link hashes. */
export const CHAIN_EVENT_COLUMNS = `position::text as "position", transaction_id::text as "transactionId", stream_id as "streamId", version, type,
              schema_version as "schemaVersion", data::text as data, metadata::text as metadata, event_id::text as "eventId",
              (extract(epoch from recorded_at) * 1000000)::bigint::text as "recordedAtMicros"`;

const START: FeedPoint = { transactionId: '0', position: '0' };

/**
 * The committed events after `after` in the feed's order, with the horizon rule of readAll (an
 * event that commits late is never passed over), each column in its canonical text form.
 */
export async function readChainEvents(db: Pool | PoolClient, after: FeedPoint | null, limit: number): Promise<ChainEvent[]> {
  const from = after ?? START;
  const { rows } = await db.query<ChainEvent>(
    prepared(
      `select ${CHAIN_EVENT_COLUMNS}
         from events
        where transaction_id < pg_snapshot_xmin(pg_current_snapshot()) and (events.transaction_id, events.position) > ($1::xid8, $2::bigint)
        order by events.transaction_id, events.position -- the columns, not the text forms selected under their names
        limit $3`,
      [from.transactionId, from.position, limit],
    ),
  );
  return rows;
}
