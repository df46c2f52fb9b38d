import type { Pool, PoolClient } from 'pg';
import type { EventLink } from './event-links';
import { prepared } from './prepared';

/** The stored links after `afterSeq`, in chain order. */
export async function readEventLinks(db: Pool | PoolClient, afterSeq: number, limit: number): Promise<EventLink[]> {
  const { rows } = await db.query<{ seq: string; position: string; transactionId: string; hash: string }>(
    prepared(
      `select seq, position::text as "position", transaction_id::text as "transactionId", encode(hash, 'hex') as hash
         from event_links where seq > $1 order by seq limit $2`,
      [afterSeq, limit],
    ),
  );
  return rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}
