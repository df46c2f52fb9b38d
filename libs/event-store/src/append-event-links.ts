import type { PoolClient } from 'pg';
import type { EventLink } from './event-links';
import { prepared } from './prepared';

/**
 * Stores new links of the audit chain and answers when they were sealed; a link already stored
 * (another sealer's) fails the insert on `seq`.
 */
export async function appendEventLinks(db: PoolClient, links: EventLink[]): Promise<Date> {
  const { rows } = await db.query<{ at: Date }>(
    prepared(
      `with added as (
         insert into event_links (seq, position, transaction_id, hash)
         select seq, position, transaction_id::xid8, decode(hash, 'hex')
           from jsonb_to_recordset($1::jsonb) as r (seq bigint, position bigint, transaction_id text, hash text)
         returning sealed_at)
       select max(sealed_at) as at from added`,
      [
        JSON.stringify(
          links.map((link) => ({ seq: link.seq, position: link.position, transaction_id: link.transactionId, hash: link.hash })),
        ),
      ],
    ),
  );
  return rows[0].at;
}
