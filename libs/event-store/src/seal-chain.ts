import type { Pool } from 'pg';
import { appendEventLinks } from './append-event-links';
import { GENESIS_HASH, linkHash } from './event-link';
import { readChainEvents } from './read-chain-events';
import { readChainHead } from './read-chain-head';

/** Transaction advisory lock key (per database) held while sealing, so one replica seals at a time. */
export const SEAL_LOCK_KEY = 4_917_002_120;

/**
 * Extends the audit chain over up to `limit` committed events the chain does not cover yet, in the
 * feed's order, off the append path: appends never wait for it. Returns the links added; 0 also
 * when another process is sealing (it holds the lock, and will cover these events).
 */
export async function sealChain(pool: Pool, limit = 1000): Promise<number> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_xact_lock($1) as locked', [SEAL_LOCK_KEY]);
    if (!rows[0].locked) {
      await client.query('rollback');
      return 0;
    }
    const head = await readChainHead(client);
    const events = await readChainEvents(client, head, limit);
    let previous = head?.hash ?? GENESIS_HASH;
    let seq = head?.count ?? 0;
    const links = events.map((event) => {
      previous = linkHash(previous, event);
      return { seq: ++seq, position: event.position, transactionId: event.transactionId, hash: previous };
    });
    if (links.length > 0) await appendEventLinks(client, links);
    await client.query('commit');
    return links.length;
  } catch (error) {
    broken = await client.query('rollback').then(
      () => undefined,
      (err: Error) => err,
    );
    throw error;
  } finally {
    client.release(broken);
  }
}
