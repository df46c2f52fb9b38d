import type { Pool } from 'pg';
import { batchProject } from './batch-project';
import { diffReadModel } from './read-model-diff';
import { READ_MODELS, type ReadModelTable } from './read-models';
import { createShadowTables } from './shadow-tables';

export interface ProjectionDifference {
  table: ReadModelTable;
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
): Promise<{ events: number; differences: ProjectionDifference[] }> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await createShadowTables(client, 'transaction');
    const events = await batchProject(client, onProgress);
    const differences: ProjectionDifference[] = [];
    for (const model of READ_MODELS) {
      const diff = await diffReadModel(client, model);
      const first = model.key[0];
      const { rows } = await client.query<{ live: Record<string, unknown> | null; rebuilt: Record<string, unknown> | null }>(
        `SELECT CASE WHEN (live).${first} IS NULL THEN NULL ELSE row_to_json(live) END AS live,
                CASE WHEN (rebuilt).${first} IS NULL THEN NULL ELSE row_to_json(rebuilt) END AS rebuilt
           FROM ${diff} LIMIT 100`,
      );
      for (const { live, rebuilt } of rows) {
        if (live) differences.push({ table: model.table, side: 'live only', row: live });
        if (rebuilt) differences.push({ table: model.table, side: 'rebuilt only', row: rebuilt });
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
