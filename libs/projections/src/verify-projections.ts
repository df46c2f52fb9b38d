import { readAll, type RecordedEvent } from '@ipledger/event-store';
import type { Pool } from 'pg';
import { projectEvents } from './project-events';

/** Every read model, with the foreign keys its projection relies on (LIKE copies none). */
const TABLES = ['pools', 'pool_labels', 'pool_ranges', 'nodes', 'allocations', 'statefulsets'] as const;
const FOREIGN_KEYS = [
  'ALTER TABLE pg_temp.pool_labels ADD FOREIGN KEY (pool) REFERENCES pg_temp.pools (name) ON DELETE CASCADE',
  'ALTER TABLE pg_temp.pool_ranges ADD FOREIGN KEY (pool) REFERENCES pg_temp.pools (name) ON DELETE CASCADE',
];

export interface ProjectionDifference {
  table: (typeof TABLES)[number];
  /** `live only`: a row the log does not explain; `rebuilt only`: a row the log implies that is missing or different */
  side: 'live only' | 'rebuilt only';
  row: Record<string, unknown>;
}

/**
 * Rebuilds every read model from position zero into temporary tables and compares them row by row
 * with the live ones. One REPEATABLE READ transaction sees the log and the live tables at the same
 * instant, and inline projections commit with their events, so on a healthy database the two agree
 * exactly. Nothing live is touched.
 */
export async function verifyProjections(
  pool: Pool,
  onProgress: (replayed: number, total: number) => void = () => undefined,
  batchSize = 5000,
): Promise<{ events: number; differences: ProjectionDifference[] }> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    for (const table of TABLES) {
      // temporary tables come first in search_path: the projection code writes to them unchanged
      await client.query(
        `CREATE TEMP TABLE ${table} (LIKE public.${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES) ON COMMIT DROP`,
      );
    }
    for (const fk of FOREIGN_KEYS) await client.query(fk);
    const total = Number((await client.query('SELECT count(*) FROM events')).rows[0].count);
    let events = 0;
    let after: string | null = null;
    for (;;) {
      const page: { events: RecordedEvent[]; next: string | null } = await readAll(client, {
        after,
        limit: batchSize,
        wholeSnapshot: true,
      });
      if (page.events.length === 0) break;
      await projectEvents(client, page.events);
      events += page.events.length;
      after = page.next;
      onProgress(events, total);
    }
    const differences: ProjectionDifference[] = [];
    for (const table of TABLES) {
      for (const [side, from, to] of [
        ['live only', 'public', 'pg_temp'],
        ['rebuilt only', 'pg_temp', 'public'],
      ] as const) {
        const { rows } = await client.query(`SELECT * FROM ${from}.${table} EXCEPT SELECT * FROM ${to}.${table} LIMIT 100`);
        differences.push(...rows.map((row) => ({ table, side, row })));
      }
    }
    await client.query('ROLLBACK');
    return { events, differences };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
