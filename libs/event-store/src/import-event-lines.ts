import type { PoolClient } from 'pg';
import type { ChainEvent } from './event-link';
import { CHAIN_EVENT_COLUMNS } from './read-chain-events';
import { prepared } from './prepared';

/**
 * Stores event lines of an export (exported-log.ts) as they are, each with the transaction id given
 * for it and its link: PostgreSQL parses each line, so data and metadata are the very jsonb that was
 * exported. Returns the stored events in the chain's text forms, by position, for the caller to
 * recompute their links from what the database now holds.
 */
export async function importEventLines(db: PoolClient, lines: string[], transactionIds: string[]): Promise<Map<string, ChainEvent>> {
  const { rows } = await db.query<ChainEvent>(
    prepared(
      `with line as (
         select l.text::jsonb as j, l.xid::xid8 as xid, l.n
           from rows from (string_to_table($1, E'\\n'), string_to_table($2, ',')) with ordinality as l (text, xid, n)
       ), linked as (
         insert into event_links (seq, position, transaction_id, hash, sealed_at)
         select (j ->> 'seq')::bigint, (j ->> 'position')::bigint, xid, decode(j ->> 'link', 'hex'), coalesce((j ->> 'sealedAt')::timestamptz, now())
           from line
       )
       insert into events (position, transaction_id, stream_id, version, event_id, type, schema_version, data, metadata, recorded_at, hash)
       select (j ->> 'position')::bigint, xid, j ->> 'streamId', (j ->> 'version')::int, (j ->> 'eventId')::uuid, j ->> 'type',
              (j ->> 'schemaVersion')::int, j -> 'data', j -> 'metadata', (j ->> 'recordedAt')::timestamptz, decode(j ->> 'legacyHash', 'hex')
         from line order by n
       returning ${CHAIN_EVENT_COLUMNS}`,
      [lines.join('\n'), transactionIds.join(',')],
    ),
  );
  return new Map(rows.map((row) => [row.position, row]));
}
