import type { PoolClient } from 'pg';
import { READ_MODELS } from './read-models';

/** The foreign keys the projections rely on (a pool's deletion cascades), named here: the live ones point at public.pools. */
const FOREIGN_KEYS = [
  'ALTER TABLE pg_temp.pool_labels ADD FOREIGN KEY (pool) REFERENCES pg_temp.pools (name) ON DELETE CASCADE',
  'ALTER TABLE pg_temp.pool_ranges ADD FOREIGN KEY (pool) REFERENCES pg_temp.pools (name) ON DELETE CASCADE',
  'ALTER TABLE pg_temp.pool_blocks ADD FOREIGN KEY (pool) REFERENCES pg_temp.pools (name) ON DELETE CASCADE',
];

/**
 * Empty temporary copies of every read model: the live tables' columns, defaults and checks, but
 * no keys or indexes yet (filled first, then constrained: building an index costs a fraction of
 * maintaining it row by row). Temporary tables come first in search_path, so projectEvents and
 * batchProject write them unchanged; no other session sees them, and nothing is left behind if
 * this one dies. `transaction`: dropped at commit or rollback; `session`: kept until dropShadowTables.
 */
export async function createShadowTables(client: PoolClient, lifetime: 'transaction' | 'session'): Promise<void> {
  for (const { table } of READ_MODELS) {
    await client.query(
      `CREATE TEMP TABLE ${table} (LIKE public.${table} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)` +
        (lifetime === 'transaction' ? ' ON COMMIT DROP' : ''),
    );
  }
}

/**
 * The live tables' primary key, unique and exclusion constraints, and the foreign keys, on the
 * filled shadow tables: projectEvents upserts and cascades on them, and the rebuilt rows pass the
 * same checks as the live ones (one address, one holder; pools never overlap).
 */
export async function constrainShadowTables(client: PoolClient): Promise<void> {
  const { rows } = await client.query<{ table: string; definition: string }>(
    `SELECT c.conrelid::regclass::text AS table, pg_get_constraintdef(c.oid) AS definition
       FROM pg_constraint c
      WHERE c.conrelid = ANY($1::regclass[]) AND c.contype IN ('p', 'u', 'x')
      ORDER BY c.contype, c.conname`,
    [READ_MODELS.map(({ table }) => `public.${table}`)],
  );
  for (const { table, definition } of rows) await client.query(`ALTER TABLE pg_temp.${table.replace(/^public\./, '')} ADD ${definition}`);
  for (const fk of FOREIGN_KEYS) await client.query(fk);
}

export async function dropShadowTables(client: PoolClient): Promise<void> {
  await client.query(`DROP TABLE IF EXISTS ${READ_MODELS.map(({ table }) => `pg_temp.${table}`).join(', ')}`);
}
