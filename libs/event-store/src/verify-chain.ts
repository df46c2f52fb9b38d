import type { Pool, PoolClient } from 'pg';
import { GENESIS_HASH, linkHash, type ChainEvent } from './event-link';
import type { EventLink } from './event-links';
import { readChainEvents } from './read-chain-events';
import { readEventLinks } from './read-event-links';

/** A head kept outside the database: the first `count` events of the feed chain to `hash`. */
export interface ExpectedHead {
  count: number;
  hash: string;
}

/** What is wrong at one link of the chain: its number (the n-th event of the feed) and why. */
export interface ChainBreak {
  link: number;
  message: string;
}

export interface ChainVerdict {
  /** committed events in the log (below the feed's horizon) */
  events: number;
  /** stored links */
  links: number;
  /** what is wrong, first broken link first; empty when the chain holds (and chains to the head, if given) */
  broken: ChainBreak[];
}

const PAGE = 5000;

/**
 * Recomputes the audit chain here, in TypeScript, from the log's columns (never with a database
 * function, which the database's owner could redefine) and compares it with the stored links and,
 * when given, with a head kept outside the database. The stored links locate tampering: after a
 * changed event the check goes on from the stored link, so each changed event is named; after an
 * event removed or inserted the two orders no longer line up, and that first place is named. The
 * head catches what the stored links cannot: an owner who rewrote them to match. One REPEATABLE READ
 * transaction sees the log and the links at one instant, whatever a sealer commits meanwhile.
 */
export async function verifyChain(pool: Pool, head?: ExpectedHead): Promise<ChainVerdict> {
  const client = await pool.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
    return await compare(client, head);
  } finally {
    await client.query('rollback').catch(() => undefined);
    client.release();
  }
}

async function compare(db: PoolClient, head?: ExpectedHead): Promise<ChainVerdict> {
  const broken: ChainBreak[] = [];
  const events = pages((last: ChainEvent | undefined) => readChainEvents(db, last ?? null, PAGE));
  const links = pages((last: EventLink | undefined) => readEventLinks(db, last?.seq ?? 0, PAGE));
  let chained = GENESIS_HASH; // the chain recomputed from the log alone
  let anchored = GENESIS_HASH; // the previous stored link, while the log and the links line up
  let aligned = true;
  let count = 0;
  let stored = 0;
  let atHead: string | undefined = head?.count === 0 ? GENESIS_HASH : undefined;
  for (let event = await events.next(); !event.done; event = await events.next()) {
    const e = event.value;
    count++;
    chained = linkHash(chained, e);
    if (count === head?.count) atHead = chained;
    const link = await links.next();
    if (link.done) continue; // committed, not sealed yet
    stored++;
    if (!aligned) continue;
    const l = link.value;
    const at = linkPlace(count, e);
    if (l.seq !== count) {
      broken.push({ link: count, message: `${at}: the stored chain has no link ${count} (its next is ${l.seq}): links were removed` });
      aligned = false;
    } else if (l.position !== e.position) {
      broken.push({
        link: count,
        message: `link ${count}: the chain covers the event at position ${l.position} here, the log has position ${e.position} (${e.streamId} version ${e.version}): an event was removed, inserted or moved`,
      });
      aligned = false;
    } else {
      const expected = linkHash(anchored, e);
      if (expected !== l.hash)
        broken.push({ link: count, message: `${at}: the event changed since it was sealed (stored ${l.hash}, recomputed ${expected})` });
      anchored = l.hash;
    }
  }
  for (let link = await links.next(); !link.done; link = await links.next()) {
    stored++;
    if (aligned) {
      broken.push({
        link: link.value.seq,
        message: `link ${link.value.seq}: the chain covers the event at position ${link.value.position}, which the log no longer holds`,
      });
      aligned = false;
    }
  }
  if (head && count < head.count)
    broken.push({
      link: count + 1,
      message: `the log holds ${count} committed events, fewer than the head's ${head.count}: events were removed`,
    });
  else if (head && atHead !== head.hash) {
    // with no stored link to say which event changed, either the owner rewrote them or they are gone
    const why =
      broken.length > 0
        ? ''
        : stored < head.count
          ? `: events were changed, and the stored links end at link ${stored}`
          : ': events were changed and the stored links rewritten to match';
    broken.push({ link: head.count, message: `link ${head.count}: the log chains to ${atHead}, not to the head's ${head.hash}${why}` });
  }
  return { events: count, links: stored, broken };
}

/** One item at a time over pages read after the last item of the previous page. */
async function* pages<T>(read: (last: T | undefined) => Promise<T[]>): AsyncGenerator<T> {
  let last: T | undefined;
  for (;;) {
    const page = await read(last);
    yield* page;
    if (page.length < PAGE) return;
    last = page[page.length - 1];
  }
}

/** A link and the event it covers, as a message names them. */
export function linkPlace(link: number, event: ChainEvent): string {
  return `link ${link} (position ${event.position}, ${event.streamId} version ${event.version})`;
}

/** The stored chain ends before a link sealed earlier: the first link it lacks. */
export function linksDeleted(stored: number, sealed: number): ChainBreak {
  return {
    link: stored + 1,
    message: `link ${stored + 1}: the stored chain ends at link ${stored}, short of link ${sealed} sealed before: links were deleted`,
  };
}

/**
 * Every way the stored chain fails to extend a head sealed before (a sealer's own, kept in memory),
 * first link first: what verifyChain finds against that head, and the links the stored chain lacks
 * up to it, which verifyChain takes for events not sealed yet. Reads the whole log: for when a cheap
 * check (check-chain-tail.ts) already found something.
 */
export async function chainBreaks(pool: Pool, head?: ExpectedHead): Promise<ChainBreak[]> {
  const verdict = await verifyChain(pool, head);
  const breaks = head && verdict.links < head.count ? [...verdict.broken, linksDeleted(verdict.links, head.count)] : verdict.broken;
  return breaks.sort((a, b) => a.link - b.link);
}
