import { prepared } from '@ipledger/event-store';
import type { IpAllocated, IpReleased } from '@ipledger/domain';
import type { RecordedEvent } from '@ipledger/event-store';
import type { Queryable } from './queryable';

/** allocations: who holds which address now. Its unique ip index is the second line against double use. */
export async function projectAllocationEvent(db: Queryable, event: RecordedEvent): Promise<void> {
  const e = { type: event.type, data: event.data } as IpAllocated | IpReleased;
  if (e.type === 'IpAllocated') {
    const d = e.data;
    await db.query(
      prepared(
        `INSERT INTO allocations (handle, family, ip, pool, node, namespace, pod, pod_uid, allocated_at, statefulset, ordinal)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          d.handle,
          d.family,
          d.ip,
          d.pool,
          d.node,
          d.namespace,
          d.pod,
          d.podUid,
          event.recordedAt,
          d.statefulSet?.name ?? null,
          d.statefulSet?.ordinal ?? null,
        ],
      ),
    );
  } else if (e.type === 'IpReleased') {
    await db.query(prepared('DELETE FROM allocations WHERE handle = $1 AND ip = $2', [e.data.handle, e.data.ip]));
  }
}
