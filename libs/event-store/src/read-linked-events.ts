import type { Pool, PoolClient } from 'pg';
import type { ChainEvent } from './event-link';
import type { EventLink } from './event-links';
import { prepared } from './prepared';
import { CHAIN_EVENT_COLUMNS } from './read-chain-events';

/** A stored link, when it was sealed, and the event at its position (null when the log no longer holds one there). */
export interface LinkedEvent extends EventLink {
  at: Date;
  event: ChainEvent | null;
}

/** The stored links `fromSeq` to `toSeq` with the events they cover, in chain order: one probe of the log a link. */
export async function readLinkedEvents(db: Pool | PoolClient, fromSeq: number, toSeq: number): Promise<LinkedEvent[]> {
  const { rows } = await db.query<{
    seq: string;
    position: string;
    transactionId: string;
    hash: string;
    at: Date;
    event: ChainEvent | null;
  }>(
    prepared(
      `select l.seq, l.position::text as "position", l.transaction_id::text as "transactionId", encode(l.hash, 'hex') as hash,
              l.sealed_at as at, to_jsonb(e) as event
         from event_links l
         left join lateral (select ${CHAIN_EVENT_COLUMNS} from events where events.position = l.position) e on true
        where l.seq between $1 and $2
        order by l.seq`,
      [fromSeq, toSeq],
    ),
  );
  return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}
