import type { Pool, PoolClient } from 'pg';
import { batchProject } from './batch-project';
import { projectUnseen } from './project-unseen';
import { READ_MODELS } from './read-models';
import { replaceLive, type ReplacedTable } from './replace-live';
import { createShadowTables, dropShadowTables } from './shadow-tables';

export interface RebuildResult {
  /** events in the log when the bulk rebuild took its snapshot */
  events: number;
  /** events appended while the rebuild ran, projected one by one before the swap */
  appended: number;
  tables: ReplacedTable[];
}

/**
 * Rebuilds every read model from position zero and swaps it in, safely while the API appends:
 *
 * 1. bulk: batchProject into session-long shadow tables in a REPEATABLE READ snapshot, no lock
 *    taken (appends and reads go on);
 * 2. catch-up, still without a lock: the events committed since that snapshot, into the shadow;
 * 3. swap, in one transaction: EXCLUSIVE on events (appends wait, readers do not) and on the live
 *    tables (no other writer), so nothing can commit behind our back; the last events committed
 *    since step 2, into the shadow; then replaceLive; commit. Readers see the old rows up to the
 *    commit and the new ones after it.
 *
 * Appends take their ROW EXCLUSIVE lock on events before they touch a read model, and so do we:
 * the same order, no deadlock. Only step 3's tail is projected under the lock, event by event.
 */
export async function rebuildProjections(
  pool: Pool,
  onProgress: (replayed: number, total: number) => void = () => undefined,
): Promise<RebuildResult> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    // first statement: the snapshot the whole bulk rebuild reads
    const bulk = await snapshotOf(client);
    await createShadowTables(client, 'session');
    const events = await batchProject(client, onProgress);
    await client.query('COMMIT');

    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    const caughtUp = await snapshotOf(client);
    let appended = await projectUnseen(client, bulk);
    await client.query('COMMIT');

    await client.query('BEGIN');
    await client.query('LOCK TABLE public.events IN EXCLUSIVE MODE');
    await client.query(`LOCK TABLE ${READ_MODELS.map(({ table }) => `public.${table}`).join(', ')} IN EXCLUSIVE MODE`);
    appended += await projectUnseen(client, caughtUp);
    const tables = await replaceLive(client);
    await client.query('COMMIT');
    return { events, appended, tables };
  } catch (err) {
    broken = await client.query('ROLLBACK').then(
      () => undefined,
      (rollbackError: Error) => rollbackError,
    );
    throw err;
  } finally {
    // a connection that cannot roll back is discarded, and its temporary tables with it
    if (!broken) await dropShadowTables(client).catch((err: Error) => (broken = err));
    client.release(broken);
  }
}

/**
 * Rebuilds every read model from the log inside the caller's transaction, for a caller that holds
 * the log still (an import, with the log locked against writers): rebuildProjections' bulk step and
 * swap, with nothing appended meanwhile to catch up. The rows become visible when the caller commits.
 */
export async function rebuildInTransaction(
  client: PoolClient,
  onProgress: (replayed: number, total: number) => void = () => undefined,
): Promise<Omit<RebuildResult, 'appended'>> {
  await createShadowTables(client, 'transaction');
  const events = await batchProject(client, onProgress);
  const tables = await replaceLive(client);
  // the shadows would hide the live tables from the rest of the caller's transaction
  await dropShadowTables(client);
  return { events, tables };
}

async function snapshotOf(client: PoolClient): Promise<string> {
  return (await client.query<{ snapshot: string }>('SELECT pg_current_snapshot()::text AS snapshot')).rows[0].snapshot;
}
