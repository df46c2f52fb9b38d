import type { StatefulSetEvent } from '@ipledger/domain';
import { prepared, type RecordedEvent } from '@ipledger/event-store';
import type { Queryable } from './queryable';

/** statefulsets: each StatefulSet's last reconciled outcome, by key. */
export async function projectStatefulSetEvent(db: Queryable, event: RecordedEvent): Promise<void> {
  const e = { type: event.type, data: event.data } as StatefulSetEvent;
  if (e.type === 'StatefulSetReconciled') {
    const d = e.data;
    await db.query(
      prepared(
        `INSERT INTO statefulsets (namespace, name, replicas, ordinals_start, pool, mode, range_start, range_end, reason, version, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (namespace, name) DO UPDATE SET replicas = excluded.replicas, ordinals_start = excluded.ordinals_start,
           pool = excluded.pool, mode = excluded.mode, range_start = excluded.range_start, range_end = excluded.range_end,
           reason = excluded.reason, version = excluded.version, updated_at = excluded.updated_at`,
        [
          d.namespace,
          d.name,
          d.replicas,
          d.ordinalsStart,
          d.pool,
          d.mode,
          d.range?.start ?? null,
          d.range?.end ?? null,
          d.reason,
          event.version,
          event.recordedAt,
        ],
      ),
    );
  } else if (e.type === 'StatefulSetDeleted') {
    await db.query(prepared('DELETE FROM statefulsets WHERE namespace = $1 AND name = $2', [e.data.namespace, e.data.name]));
  }
}
