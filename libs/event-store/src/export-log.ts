import type { Pool, PoolClient } from 'pg';
import { countFeedAfter } from './count-feed-after';
import { GENESIS_HASH, linkHash } from './event-link';
import { eventLine, LOG_FORMAT, LOG_FORMAT_VERSION, type LogHeader } from './exported-log';
import type { FeedPoint } from './read-chain-events';
import { readChainHead } from './read-chain-head';
import { readEventLinks } from './read-event-links';
import { readExportPage, type ExportRow } from './read-export-page';
import { readFeedPoint } from './read-feed-point';
import { readSchemaVersion } from './read-schema-version';

export class NoEventAtPositionError extends Error {
  constructor(readonly position: string) {
    super(`no committed event at position ${position}: --from takes the position of an event (GET /v1/events)`);
    this.name = 'NoEventAtPositionError';
  }
}

/** A piece of the export: its text (whole lines) and how many event lines it holds. */
export interface ExportChunk {
  text: string;
  events: number;
}

/** A link of the chain: its number and hash. */
interface Link {
  seq: number;
  hash: string;
}

const GENESIS: Link = { seq: 0, hash: GENESIS_HASH };
const PAGE = 5000;

/**
 * The log in the export format (exported-log.ts), a page of lines a chunk: the committed events in
 * the feed's order, from the event at position `from` (the whole log without it), each with its
 * stored link, or, past the stored head, the link the sealer will store (the chain is a function
 * of the feed's order, so both agree). One REPEATABLE READ READ ONLY transaction sees the log and
 * the links at one instant (a standby serves it too); pages are read by the feed's own cursor, so
 * memory holds a page, whatever the log's length. Nothing is checked here: `ipledger import`
 * recomputes every link, and refuses a log whose stored links do not hold.
 */
export async function* exportLog(pool: Pool, options: { from?: string } = {}): AsyncGenerator<ExportChunk> {
  const client = await pool.connect();
  let next: Promise<ExportRow[]> | undefined;
  try {
    await client.query('begin isolation level repeatable read read only');
    const head = await readChainHead(client);
    const start = options.from === undefined ? { after: null, previous: GENESIS } : await startAt(client, options.from, head);
    const header: LogHeader = {
      format: LOG_FORMAT,
      version: LOG_FORMAT_VERSION,
      schema: await readSchemaVersion(client),
      exportedAt: new Date().toISOString(),
      events: await countFeedAfter(client, start.after),
      head: { count: head?.count ?? 0, hash: head?.hash ?? GENESIS_HASH, at: head?.at.toISOString() ?? null },
      from: options.from === undefined ? null : Number(options.from),
      first: { seq: start.previous.seq + 1, previous: start.previous.hash },
    };
    yield { text: `${JSON.stringify(header)}\n`, events: 0 };
    let { previous } = start;
    // the next page is read while this one is written: two pages in memory at most
    next = readExportPage(client, start.after, PAGE);
    for (;;) {
      const rows: ExportRow[] = await next;
      if (rows.length === 0) return;
      next = rows.length < PAGE ? Promise.resolve([]) : readExportPage(client, rows[rows.length - 1], PAGE);
      const lines = rows.map((row) => {
        previous = linked(row, previous);
        const { seq, hash: link } = previous;
        return eventLine({ ...row, seq, link });
      });
      yield { text: `${lines.join('\n')}\n`, events: rows.length };
    }
  } finally {
    await next?.catch(() => undefined);
    await client.query('rollback').catch(() => undefined);
    client.release();
  }
}

/** The event's stored link, or the one computed after `previous` while it is not sealed. */
function linked(row: ExportRow, previous: Link): Link {
  return row.seq !== null && row.link !== null
    ? { seq: Number(row.seq), hash: row.link }
    : { seq: previous.seq + 1, hash: linkHash(previous.hash, row) };
}

/** The feed point just before the event at `position`, and the link it chains to. */
async function startAt(
  client: PoolClient,
  position: string,
  head: (FeedPoint & { count: number; hash: string }) | null,
): Promise<{ after: FeedPoint | null; previous: Link }> {
  const point = await readFeedPoint(client, position);
  if (!point) throw new NoEventAtPositionError(position);
  if (point.seq === 1) return { after: null, previous: GENESIS };
  if (point.seq !== null) {
    const [before] = await readEventLinks(client, point.seq - 2, 1);
    if (before?.seq !== point.seq - 1) throw new Error(`link ${point.seq - 1} is missing from the stored chain: run ipledger verify-chain`);
    return { after: before, previous: before };
  }
  // not sealed yet: after the stored head, the links up to it are computed as the sealer will
  let after: FeedPoint | null = head;
  let previous: Link = head ? { seq: head.count, hash: head.hash } : GENESIS;
  for (;;) {
    const rows = await readExportPage(client, after, PAGE);
    if (rows.length === 0) throw new NoEventAtPositionError(position);
    for (const row of rows) {
      if (row.position === point.position) return { after, previous };
      previous = linked(row, previous);
      after = row;
    }
  }
}
