import { prepared } from '@ipledger/event-store';
import type { IpAllocated, IpReleased } from '@ipledger/domain';
import type { RecordedEvent } from '@ipledger/event-store';
import type { Queryable } from './queryable';

/**
 * The allocations row an IpAllocated creates, as a SELECT over a relation of its `data` and
 * `recorded_at`: the one derivation the inline projection (over its parameters) and the batch
 * rebuild (over the log) share. allocated_at keeps milliseconds, as node-pg's Date always did; an
 * event recorded before owners were gets allocationOwner()'s default (pod if it names a podUid).
 */
export const ALLOCATION_ROW = `SELECT data ->> 'handle' AS handle, (data ->> 'family')::smallint AS family, (data ->> 'ip')::inet AS ip,
  data ->> 'pool' AS pool, data ->> 'node' AS node, data ->> 'namespace' AS namespace, data ->> 'pod' AS pod,
  data ->> 'podUid' AS pod_uid,
  COALESCE(data ->> 'owner', CASE WHEN data ->> 'podUid' IS NULL THEN 'external' ELSE 'pod' END) AS owner, date_trunc('milliseconds', recorded_at) AS allocated_at,
  data -> 'statefulSet' ->> 'name' AS statefulset, (data -> 'statefulSet' ->> 'ordinal')::integer AS ordinal, data ->> 'network' AS network`;

export const ALLOCATION_COLUMNS =
  'handle, family, ip, pool, node, namespace, pod, pod_uid, owner, allocated_at, statefulset, ordinal, network';

const INSERT = `INSERT INTO allocations (${ALLOCATION_COLUMNS}) ${ALLOCATION_ROW} FROM (SELECT $1::jsonb AS data, $2::timestamptz AS recorded_at) e`;

/** allocations: who holds which address now. Its unique ip index is the second line against double use. */
export async function projectAllocationEvent(db: Queryable, event: RecordedEvent): Promise<void> {
  const e = { type: event.type, data: event.data } as IpAllocated | IpReleased;
  if (e.type === 'IpAllocated') {
    await db.query(prepared(INSERT, [e.data, event.recordedAt]));
  } else if (e.type === 'IpReleased') {
    await db.query(prepared('DELETE FROM allocations WHERE handle = $1 AND ip = $2', [e.data.handle, e.data.ip]));
  }
}
