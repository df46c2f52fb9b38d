import type { Pool } from 'pg';
import { appendEventLinks } from './append-event-links';
import { checkChainTail } from './check-chain-tail';
import { GENESIS_HASH, linkHash } from './event-link';
import type { StoredHead } from './event-links';
import { readChainEvents } from './read-chain-events';
import type { ChainBreak } from './verify-chain';

/** Transaction advisory lock key (per database) held while sealing, so one replica seals at a time. */
export const SEAL_LOCK_KEY = 4_917_002_120;

export interface SealOptions {
  /** links sealed (and links of others checked) at most in one call */
  limit?: number;
  /** the head this sealer sealed or checked last: sealing goes on only from a stored chain that extends it */
  sealed?: StoredHead | null;
  /** the newest links recomputed over their events each call (check-chain-tail.ts) */
  recheck?: number;
}

export interface SealRound {
  /** links added */
  sealed: number;
  /** the head checked and extended: the stored head, unless `behind` (or `break`: then the head given) */
  head: StoredHead | null;
  /** other sealers added more links than one call checks: call again */
  behind: boolean;
  /** the stored chain no longer extends the head given: nothing was sealed */
  break: ChainBreak | null;
}

/**
 * Extends the audit chain over up to `limit` committed events the chain does not cover yet, in the
 * feed's order, off the append path: appends never wait for it. First it checks that the stored
 * chain still extends the head the caller sealed before (checkChainTail); when it does not, it seals
 * nothing: a chain is never extended over a difference. Seals nothing either when another process
 * holds the lock (it will cover these events).
 */
export async function sealChain(pool: Pool, options: SealOptions = {}): Promise<SealRound> {
  const { limit = 1000, sealed = null, recheck = 100 } = options;
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_xact_lock($1) as locked', [SEAL_LOCK_KEY]);
    const check = await checkChainTail(client, sealed, recheck, limit);
    if (!rows[0].locked || check.break || !check.caughtUp) {
      await client.query('rollback');
      return { sealed: 0, head: check.head, behind: !check.caughtUp, break: check.break };
    }
    const events = await readChainEvents(client, check.head, limit);
    let previous = check.head?.hash ?? GENESIS_HASH;
    let seq = check.head?.count ?? 0;
    const links = events.map((event) => {
      previous = linkHash(previous, event);
      return { seq: ++seq, position: event.position, transactionId: event.transactionId, hash: previous };
    });
    const at = links.length > 0 ? await appendEventLinks(client, links) : undefined;
    await client.query('commit');
    const last = links[links.length - 1];
    const head =
      last && at ? { count: last.seq, hash: last.hash, position: last.position, transactionId: last.transactionId, at } : check.head;
    return { sealed: links.length, head, behind: false, break: null };
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
