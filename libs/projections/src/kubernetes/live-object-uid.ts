import { prepared } from '@ipledger/event-store';
import type { Queryable } from '../queryable';

/** The uid of the object of this kind and key the consumer last applied as live; null when it knows none. */
export async function liveObjectUid(db: Queryable, kind: string, key: string): Promise<string | null> {
  const { rows } = await db.query<{ uid: string }>(
    prepared('SELECT uid FROM kubernetes_objects WHERE kind = $1 AND key = $2 AND NOT deleted', [kind, key]),
  );
  return rows[0]?.uid ?? null;
}
