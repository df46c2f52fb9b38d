import { createHash } from 'node:crypto';
import type { QueryConfig } from 'pg';

/** Distinct statement texts kept as prepared statements; past this, queries run unprepared. */
const MAX_PREPARED = 500;
const names = new Map<string, string>();

/**
 * A query that Postgres parses once per connection (a named prepared statement) instead of on
 * every call, and plans once after five calls when a generic plan costs no more than the custom
 * ones: planning costs as much as running the hot-path queries. A parameter array defeats that
 * (its length prices each custom plan), so the hot path's batches travel as one JSON row set
 * (jsonb_to_recordset). Texts are bounded, since selector-built queries vary in shape and every
 * name lives on in each pooled connection.
 */
export function prepared(text: string, values: unknown[] = []): QueryConfig {
  let name = names.get(text);
  if (!name && names.size < MAX_PREPARED) {
    name = `ipl_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    names.set(text, name);
  }
  return name ? { name, text, values } : { text, values };
}
