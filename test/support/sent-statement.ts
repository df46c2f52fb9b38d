import type { Pool } from 'pg';

export interface SentStatement {
  text: string;
  values: unknown[];
}

/**
 * The last statement `run` sends through the pool it is given, captured instead of run (every
 * query answers no rows), so a test can EXPLAIN exactly what the code would send.
 */
export async function sentStatement(run: (db: Pool) => Promise<unknown>): Promise<SentStatement> {
  let sent: SentStatement | undefined;
  const capture = (query: SentStatement) => {
    sent = query;
    return Promise.resolve({ rows: [] });
  };
  const db = { query: capture, connect: () => Promise.resolve({ query: capture, release: () => undefined }) } as unknown as Pool;
  // with no rows the code may fail after sending (a missing result): the statement is what counts
  await run(db).catch(() => undefined);
  if (!sent) throw new Error('nothing was sent');
  return sent;
}
