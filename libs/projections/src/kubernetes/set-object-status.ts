import type { Queryable } from '../queryable';

/** What was done of an object outside its own message (a sync's retry or delete, an unpark that found nothing); `deleted` marks it deleted too. */
export async function setObjectStatus(db: Queryable, kind: string, key: string, status: string, deleted?: true): Promise<void> {
  await db.query('UPDATE kubernetes_objects SET status = $3, deleted = deleted OR $4 WHERE kind = $1 AND key = $2', [
    kind,
    key,
    status,
    deleted ?? false,
  ]);
}
