import { DatabaseError, type PoolClient } from 'pg';
import { continuePositions } from './continue-positions';
import { GENESIS_HASH, linkHash, type ChainEvent } from './event-link';
import { parseEventLine, parseLogHeader, type ExportedEvent, type LogHeader } from './exported-log';
import { importEventLines } from './import-event-lines';
import { lockEmptyLog } from './lock-empty-log';
import { newSubtransactionId } from './new-subtransaction-id';
import type { ExpectedHead } from './verify-chain';

/** Why an import was refused, with the line of the file it is about (null: the file as a whole) and that line's event. */
export class ImportRefusedError extends Error {
  constructor(
    readonly line: number | null,
    reason: string,
    event?: Pick<ExportedEvent, 'position' | 'streamId' | 'version'>,
  ) {
    const at = event ? ` (position ${event.position}, ${event.streamId} version ${event.version})` : '';
    super(line === null ? reason : `line ${line}${at}: ${reason}`);
    this.name = 'ImportRefusedError';
  }
}

export interface ImportOptions {
  /** a head kept outside the database (GET /v1/audit/head): the file's first `count` events must chain to it */
  head?: ExpectedHead;
  /** the migrations this release knows: a file from a newer schema is refused */
  knownSchemas: readonly string[];
  /** event lines imported so far, of the header's count */
  onProgress?: (imported: number, total: number) => void;
}

export interface ImportResult {
  /** the head of the imported chain */
  head: ExpectedHead;
}

/** Event lines stored a statement. */
const BATCH = 2000;

interface Line {
  number: number;
  text: string;
  event: ExportedEvent;
  transactionId: string;
}

/**
 * Loads an export (exported-log.ts) into an empty log inside the caller's transaction, recomputing
 * every link as it goes, in this process (linkHash, as verify-chain does), over the events as the
 * database stored them; refuses the whole file, naming the first line that breaks the chain, the
 * header's head or the head given. The caller rolls back on a refusal, and commits (after rebuilding
 * the read models) otherwise; the log stays locked against other writers until then.
 *
 * Events keep their positions, ids, times and links. Their transaction ids are the source
 * cluster's, meaningless here: in a new cluster they may lie above its transaction counter, where
 * the feed (which reads below the oldest running transaction) would hide them and order every later
 * append before them. They are replaced by ids of this very transaction, which are below every
 * later one: the lines, already in the feed's order, keep it with a new id wherever a position is
 * lower than the one before (one id for a log written in position order).
 */
export async function importLog(client: PoolClient, lines: AsyncIterable<string>, options: ImportOptions): Promise<ImportResult> {
  const held = await lockEmptyLog(client);
  if (held.events + held.links + held.snapshots > 0) {
    throw new ImportRefusedError(
      null,
      `the database is not empty (${held.events} events, ${held.links} links, ${held.snapshots} snapshots): import only into a new database`,
    );
  }
  let header: LogHeader | undefined;
  let number = 0;
  let chained = GENESIS_HASH;
  let count = 0;
  let transactionId = '';
  let lastPosition = Infinity;
  let batch: Line[] = [];

  /** The line's event as stored chains on: its link is the file's, and the heads agree where they fall. */
  const verify = (line: Line, stored: ChainEvent | undefined) => {
    const refuse = (reason: string) => new ImportRefusedError(line.number, reason, line.event);
    if (!stored) throw refuse('the event was not stored');
    const recomputed = linkHash(chained, stored);
    if (recomputed !== line.event.link) {
      throw refuse(
        `the chain breaks here: this event after link ${count} gives ${recomputed}, the line's link is ${line.event.link} (this line was edited, or the one before it together with its link)`,
      );
    }
    chained = recomputed;
    count++;
    if (count === header!.head.count && chained !== header!.head.hash) {
      throw refuse(`link ${count} is ${chained}, not the header's head ${header!.head.hash}`);
    }
    if (count === options.head?.count && chained !== options.head.hash) {
      throw refuse(
        `the file chains to ${chained} at link ${count}, not to the --head's ${options.head.hash}: an event up to here was changed and the links after it rewritten (or the head is another ledger's)`,
      );
    }
  };

  /** Stores the lines read so far and checks them in order; a statement the database refuses is retried a line at a time to name the line. */
  const flush = async () => {
    if (batch.length === 0) return;
    const lines = batch;
    batch = [];
    for (const stored of await store(lines)) verify(stored.line, stored.event);
    options.onProgress?.(count, header!.events);
  };
  const store = async (lines: Line[]): Promise<Array<{ line: Line; event: ChainEvent | undefined }>> => {
    await client.query('savepoint ipledger_import_batch');
    try {
      const stored = await importEventLines(
        client,
        lines.map((l) => l.text),
        lines.map((l) => l.transactionId),
      );
      await client.query('release savepoint ipledger_import_batch');
      return lines.map((line) => ({ line, event: stored.get(String(line.event.position)) }));
    } catch (err) {
      if (!(err instanceof DatabaseError)) throw err;
      await client.query('rollback to savepoint ipledger_import_batch');
      if (lines.length > 1) {
        // one at a time: the lines before the refused one are checked first, as they would have been
        for (const line of lines) for (const stored of await store([line])) verify(stored.line, stored.event);
        return [];
      }
      throw new ImportRefusedError(lines[0].number, `the database refused it: ${err.message}`, lines[0].event);
    }
  };

  for await (const text of lines) {
    number++;
    if (!header) {
      header = checkedHeader(text, options.knownSchemas);
      continue;
    }
    const event = parseEventLine(text);
    const refuse = async (reason: string, about?: ExportedEvent) => {
      await flush(); // a line before this one may be the first bad one
      return new ImportRefusedError(number, reason, about);
    };
    if (typeof event === 'string') throw await refuse(event);
    const expected = count + batch.length + 1;
    if (event.seq !== expected) {
      throw await refuse(
        `it holds link ${event.seq} where link ${expected} belongs: ` +
          (event.seq > expected ? 'a line was removed before it, or moved' : 'a line was inserted, repeated or moved'),
        event,
      );
    }
    if (expected > header.events) throw await refuse(`the header announces ${header.events} event lines, this is one more`, event);
    if (event.position < lastPosition) {
      transactionId = await newSubtransactionId(client);
    }
    lastPosition = event.position;
    batch.push({ number, text, event, transactionId });
    if (batch.length === BATCH) await flush();
  }
  await flush();
  if (!header) throw new ImportRefusedError(null, 'the file is empty: not an export');
  if (count < header.events) {
    throw new ImportRefusedError(
      null,
      `the file ends after ${count} of the ${header.events} events its header announces: lines were removed from its end, or it was cut short`,
    );
  }
  if (count < header.head.count)
    throw new ImportRefusedError(null, `the file holds ${count} events, fewer than its header's head ${header.head.count}`);
  if (options.head && count < options.head.count) {
    throw new ImportRefusedError(
      null,
      `the file holds ${count} events, fewer than the --head's ${options.head.count}: events were removed`,
    );
  }
  await continuePositions(client);
  return { head: { count, hash: chained } };
}

/** The header, when this release can import the file it heads. */
function checkedHeader(text: string, knownSchemas: readonly string[]): LogHeader {
  const header = parseLogHeader(text);
  if (typeof header === 'string') throw new ImportRefusedError(1, header);
  if (!knownSchemas.includes(header.schema)) {
    throw new ImportRefusedError(
      1,
      `the file was exported from a schema at ${header.schema}, which this release does not know: import it with that release or a later one`,
    );
  }
  if (header.first.seq !== 1 || header.first.previous !== GENESIS_HASH) {
    throw new ImportRefusedError(
      1,
      `the file starts at link ${header.first.seq} (exported --from ${header.from}): only a whole log can be imported`,
    );
  }
  return header;
}
