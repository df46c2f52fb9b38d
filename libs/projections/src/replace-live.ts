import type { PoolClient } from 'pg';
import { diffReadModel } from './read-model-diff';
import { READ_MODELS, type ReadModelTable } from './read-models';

export interface ReplacedTable {
  table: ReadModelTable;
  /** live rows the rebuild does not hold (or holds otherwise), deleted */
  deleted: number;
  /** rebuilt rows live lacked (or held otherwise), inserted */
  inserted: number;
  rows: number;
}

/**
 * Makes every live read model (public) hold exactly its shadow's rows (pg_temp), touching only the
 * rows that differ: plain DELETE and INSERT, not TRUNCATE or a rename, so constraints, indexes and
 * names stay as they are, readers keep reading (MVCC) and see the new rows only when the caller
 * commits, and a healthy table costs a comparison, not a rewrite. Parents are compared and deleted
 * before their children (a pool deleted here cascades to rows that then show up as missing and go
 * back in), every delete comes before any insert, and inserts go parents first: the foreign keys,
 * unique and exclusion constraints only ever see rows the rebuild agrees with.
 */
export async function replaceLive(client: PoolClient): Promise<ReplacedTable[]> {
  // null: the live table is empty (a first rebuild), so every rebuilt row goes in without a comparison
  const diffs = new Map<ReadModelTable, { diff: string | null; deleted: number }>();
  for (const model of READ_MODELS) {
    const { rows } = await client.query<{ empty: boolean }>(`SELECT NOT EXISTS (SELECT FROM public.${model.table}) AS empty`);
    if (rows[0].empty) {
      diffs.set(model.table, { diff: null, deleted: 0 });
      continue;
    }
    const diff = await diffReadModel(client, model);
    const same = model.key.map((k) => `(d.live).${k} = l.${k}`).join(' AND ');
    const deleted = await client.query(`DELETE FROM public.${model.table} l USING ${diff} d WHERE ${same}`);
    diffs.set(model.table, { diff, deleted: deleted.rowCount ?? 0 });
  }
  const replaced: ReplacedTable[] = [];
  for (const { table, key } of READ_MODELS) {
    const { diff, deleted } = diffs.get(table)!;
    const inserted = await client.query(
      diff
        ? `INSERT INTO public.${table} SELECT (d.rebuilt).* FROM ${diff} d WHERE (d.rebuilt).${key[0]} IS NOT NULL`
        : `INSERT INTO public.${table} SELECT * FROM pg_temp.${table}`,
    );
    const { rows } = await client.query<{ count: string }>(`SELECT count(*) FROM pg_temp.${table}`);
    replaced.push({ table, deleted, inserted: inserted.rowCount ?? 0, rows: Number(rows[0].count) });
  }
  return replaced;
}
