import type { PoolClient } from 'pg';
import type { ChainEvent } from './event-link';
import { CHAIN_EVENT_COLUMNS, type FeedPoint } from './read-chain-events';
import { prepared } from './prepared';

/** An event as the export writes it: the chain's text forms, the other columns, and its stored link if sealed. */
export interface ExportRow extends ChainEvent {
  /** RFC 3339 in UTC, to the microsecond */
  recordedAt: string;
  legacyHash: string | null;
  /** the stored link; null while not sealed */
  seq: string | null;
  link: string | null;
  sealedAt: string | null;
}

const UTC = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;

/** The committed events after `after` in the feed's order (readChainEvents' rule), each with its stored link. */
export async function readExportPage(db: PoolClient, after: FeedPoint | null, limit: number): Promise<ExportRow[]> {
  const { rows } = await db.query<ExportRow>(
    prepared(
      `select ${CHAIN_EVENT_COLUMNS}, to_char(recorded_at at time zone 'UTC', ${UTC}) as "recordedAt",
              encode(hash, 'hex') as "legacyHash", l.seq::text as seq, encode(l.link, 'hex') as link,
              to_char(l.sealed_at at time zone 'UTC', ${UTC}) as "sealedAt"
         from events
         left join lateral (select seq, hash as link, sealed_at from event_links where event_links.position = events.position) l on true
        where transaction_id < pg_snapshot_xmin(pg_current_snapshot()) and (events.transaction_id, events.position) > ($1::xid8, $2::bigint)
        order by events.transaction_id, events.position
        limit $3`,
      [after?.transactionId ?? '0', after?.position ?? '0', limit],
    ),
  );
  return rows;
}
