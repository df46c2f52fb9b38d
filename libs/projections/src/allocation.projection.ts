import { prepared } from '@ipledger/event-store';
import { clusterOf, type IpReleased } from '@ipledger/domain';
import type { RecordedEvent } from '@ipledger/event-store';
import { eventClusterSql } from './cluster-key-sql';
import type { Queryable } from './queryable';

/**
 * The allocations row an IpAllocated creates, as a SELECT over a relation of its `data` and
 * `recorded_at`: the one derivation the inline projection (over its parameters) and the batch
 * rebuild (over the log) share. allocated_at keeps milliseconds, as node-pg's Date always did; an
 * event recorded before owners were gets allocationOwner()'s default (pod if it names a podUid).
 */
export const ALLOCATION_ROW = `SELECT data ->> 'handle' AS handle, ${eventClusterSql('data')} AS cluster, (data ->> 'family')::smallint AS family, (data ->> 'ip')::inet AS ip,
  data ->> 'pool' AS pool, data ->> 'node' AS node, data ->> 'namespace' AS namespace, data ->> 'pod' AS pod,
  data ->> 'podUid' AS pod_uid,
  COALESCE(data ->> 'owner', CASE WHEN data ->> 'podUid' IS NULL THEN 'external' ELSE 'pod' END) AS owner, date_trunc('milliseconds', recorded_at) AS allocated_at,
  data -> 'statefulSet' ->> 'name' AS statefulset, (data -> 'statefulSet' ->> 'ordinal')::integer AS ordinal, data ->> 'network' AS network,
  (data ->> 'borrowed')::boolean AS borrowed, (data ->> 'adopted')::boolean AS adopted, data ->> 'poolNetwork' AS pool_network`;

export const ALLOCATION_COLUMNS =
  'handle, cluster, family, ip, pool, node, namespace, pod, pod_uid, owner, allocated_at, statefulset, ordinal, network, borrowed, adopted, pool_network';

const INSERT = `INSERT INTO allocations (${ALLOCATION_COLUMNS}) ${ALLOCATION_ROW} FROM unnest($1::jsonb[], $2::timestamptz[]) e (data, recorded_at)`;
const DELETE =
  'DELETE FROM allocations a USING unnest($1::text[], $2::text[], $3::inet[]) r (cluster, handle, ip) WHERE a.cluster = r.cluster AND a.handle = r.handle AND a.ip = r.ip';

/**
 * The same as projectAllocationEvents, for a run of one type, as a data-modifying CTE over the rows
 * the append inserts (`appended`): see appendToStreams' sameStatement. Released rows are also
 * matched by `= ANY (ARRAY(...))`, which keeps the statement's one generic plan (priced for 100
 * rows of `appended`) on the ip index instead of a hash join over the whole table.
 */
export function allocationRowsCte(type: 'IpAllocated' | 'IpReleased'): string {
  return type === 'IpAllocated'
    ? `projected_allocations AS (INSERT INTO allocations (${ALLOCATION_COLUMNS}) ${ALLOCATION_ROW} FROM appended)`
    : `projected_releases AS (DELETE FROM allocations a USING appended e WHERE a.cluster = ${eventClusterSql('e.data')} AND a.handle = e.data ->> 'handle' AND a.ip = (e.data ->> 'ip')::inet
         AND a.ip = ANY (ARRAY(SELECT (r.data ->> 'ip')::inet FROM appended r)))`;
}

/**
 * allocations: who holds which address now. Its unique (ip, pool_network) index is the second line
 * against double use: an address is held once within its pool's network (null: the shared space). A group commit's events arrive together: each run of one type is one statement (an address or
 * a handle appears at most once in a run; a release and a re-allocation are in different runs).
 */
export async function projectAllocationEvents(db: Queryable, events: readonly RecordedEvent[]): Promise<void> {
  for (let i = 0; i < events.length; ) {
    let end = i + 1;
    while (end < events.length && events[end].type === events[i].type) end++;
    const run = events.slice(i, end);
    if (events[i].type === 'IpAllocated') {
      await db.query(prepared(INSERT, [run.map((e) => JSON.stringify(e.data)), run.map((e) => e.recordedAt)]));
    } else if (events[i].type === 'IpReleased') {
      const data = run.map((e) => e.data as IpReleased['data']);
      await db.query(prepared(DELETE, [data.map(clusterOf), data.map((d) => d.handle), data.map((d) => d.ip)]));
    }
    i = end;
  }
}
