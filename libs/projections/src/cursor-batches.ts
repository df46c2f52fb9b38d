import type { PoolClient, QueryResultRow } from 'pg';

/**
 * Runs `sql` through a server-side cursor (inside the caller's transaction) and hands its rows
 * over `size` at a time: memory holds a batch, not the result. The next batch is already asked
 * for while `onBatch` works on this one, so the database and this process work side by side.
 */
export async function forEachBatch<R extends QueryResultRow>(
  client: PoolClient,
  sql: string,
  size: number,
  onBatch: (rows: R[]) => Promise<void> | void,
): Promise<void> {
  await client.query(`DECLARE batches NO SCROLL CURSOR FOR ${sql}`);
  const fetch = () => client.query<R>(`FETCH ${size} FROM batches`);
  let next = fetch();
  for (;;) {
    const { rows } = await next;
    if (rows.length === 0) break;
    next = fetch();
    await onBatch(rows);
  }
  await client.query('CLOSE batches');
}
