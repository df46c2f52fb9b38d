import type { Pool, PoolClient } from 'pg';
import type { StoredHead } from './event-links';
import { prepared } from './prepared';

/** The last stored link (with its place in the feed), or null while the chain is empty. */
export async function readChainHead(db: Pool | PoolClient): Promise<StoredHead | null> {
  const { rows } = await db.query<{ seq: string; position: string; transactionId: string; hash: string; at: Date }>(
    prepared(
      `select seq, position::text as "position", transaction_id::text as "transactionId", encode(hash, 'hex') as hash, sealed_at as at
         from event_links order by seq desc limit 1`,
    ),
  );
  const row = rows[0];
  return row ? { count: Number(row.seq), hash: row.hash, at: row.at, position: row.position, transactionId: row.transactionId } : null;
}
