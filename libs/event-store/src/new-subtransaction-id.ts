import type { PoolClient } from 'pg';

const EPOCH = 2n ** 32n;

/**
 * A transaction id of the caller's own transaction, above every one it had: a subtransaction's,
 * taken by a write in it (a row in a temporary table) and kept by releasing it. Returned as xid8:
 * the row's xmin is 32 bits, widened with the epoch of the top transaction it follows.
 */
export async function newSubtransactionId(db: PoolClient): Promise<string> {
  await db.query('create temp table if not exists ipledger_subtransactions () on commit drop');
  await db.query('savepoint ipledger_subtransaction');
  const { rows } = await db.query<{ xid: string; top: string }>(
    'insert into pg_temp.ipledger_subtransactions default values returning xmin::text as xid, pg_current_xact_id()::text as top',
  );
  await db.query('release savepoint ipledger_subtransaction');
  const top = BigInt(rows[0].top);
  const xid = top - (top % EPOCH) + BigInt(rows[0].xid);
  return String(xid < top ? xid + EPOCH : xid);
}
