import type { Pool, PoolClient } from 'pg';
import { GENESIS_HASH, linkHash } from './event-link';
import type { StoredHead } from './event-links';
import { readChainHead } from './read-chain-head';
import { readLinkedEvents, type LinkedEvent } from './read-linked-events';
import { linkPlace, linksDeleted, type ChainBreak } from './verify-chain';

export interface TailCheck {
  /** the head checked through: the stored head when caught up */
  head: StoredHead | null;
  /** false when more links were sealed past `sealed` than one check covers: check again */
  caughtUp: boolean;
  /** the stored chain no longer extends `sealed` (head is then `sealed`) */
  break: ChainBreak | null;
}

/**
 * Whether the stored chain still extends `sealed`, the head a sealer sealed or checked last, without
 * reading the whole chain: the chain is not shorter, its link at `sealed.count` still has that hash,
 * and the links after it (another replica's) and the newest `recheck` links, recomputed here over
 * the events they cover, still chain. At most `limit` links past `sealed` a call. An event changed
 * under an older link is found by `ipledger verify-chain --head` with a head kept outside.
 */
export async function checkChainTail(db: Pool | PoolClient, sealed: StoredHead | null, recheck: number, limit: number): Promise<TailCheck> {
  const kept = { head: sealed, caughtUp: true };
  const stored = await readChainHead(db);
  const storedCount = stored?.count ?? 0;
  if (sealed && storedCount < sealed.count) return { ...kept, break: linksDeleted(storedCount, sealed.count) };
  if (!stored) return { ...kept, break: null };
  const to = sealed ? Math.min(storedCount, sealed.count + limit) : storedCount;
  const from = Math.max(1, Math.min(sealed?.count ?? to, to - recheck + 1));
  // the link before `from` is what the first one chains to
  const links = await readLinkedEvents(db, from - 1, to);
  let previous = from === 1 ? GENESIS_HASH : undefined;
  let expected = from === 1 ? 1 : from - 1;
  for (const link of links) {
    if (link.seq !== expected) {
      const message = `link ${expected}: the stored chain has no link ${expected} (its next is ${link.seq}): links were deleted`;
      return { ...kept, break: { link: expected, message } };
    }
    const broken = previous === undefined ? null : difference(link, previous, sealed);
    if (broken) return { ...kept, break: broken };
    previous = link.hash;
    expected++;
  }
  // links deleted between the two reads
  if (expected <= to) return { ...kept, break: linksDeleted(expected - 1, to) };
  const last = links[links.length - 1];
  const head = { count: last.seq, hash: last.hash, position: last.position, transactionId: last.transactionId, at: last.at };
  return { head, caughtUp: to === storedCount, break: null };
}

/** What is wrong with a stored link that should chain to `previous`, or null. */
function difference(link: LinkedEvent, previous: string, sealed: StoredHead | null): ChainBreak | null {
  const broken = (message: string) => ({ link: link.seq, message });
  if (link.seq === sealed?.count && link.hash !== sealed.hash)
    return broken(`link ${link.seq}: stored as ${link.hash}, sealed as ${sealed.hash}: the link was rewritten`);
  const event = link.event;
  if (!event) return broken(`link ${link.seq}: the chain covers the event at position ${link.position}, which the log no longer holds`);
  const at = linkPlace(link.seq, event);
  if (event.transactionId !== link.transactionId)
    return broken(
      `${at}: the link puts its event in transaction ${link.transactionId}, the log in ${event.transactionId}: one was changed`,
    );
  const recomputed = linkHash(previous, event);
  if (recomputed !== link.hash)
    return broken(`${at}: the event or its link changed since it was sealed (stored ${link.hash}, recomputed ${recomputed})`);
  return null;
}
