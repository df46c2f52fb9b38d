import { ipSetOfRange, type IpSetKind } from '@ipledger/domain';
import { prepared } from '@ipledger/event-store';
import type { Queryable } from './queryable';
import { rfc3339 } from './rfc3339';

export interface IpHistoryItem {
  type: 'IpAllocated' | 'IpReleased' | 'RangeReserved';
  handle: string | null;
  pool: string;
  node: string | null;
  namespace: string | null;
  pod: string | null;
  /** the StatefulSet a range belongs to, for reservation entries */
  statefulSet: string | null;
  /** the Deployment or ReplicaSet whose ip-set a range is, for reservation entries (in `namespace`) */
  ipSet: { kind: IpSetKind; name: string } | null;
  at: string;
  actor: string | null;
}

/**
 * Every allocation and release of one address, and every StatefulSet range or ip-set reserved over it,
 * oldest first, read from the log itself (the read models only know the present).
 */
export async function ipHistory(db: Queryable, ip: string): Promise<IpHistoryItem[]> {
  const { rows } = await db.query<Omit<IpHistoryItem, 'ipSet'> & { position: string }>(
    prepared(
      `SELECT type, data ->> 'handle' AS handle, data ->> 'pool' AS pool, data ->> 'node' AS node, data ->> 'namespace' AS namespace,
              data ->> 'pod' AS pod, NULL AS "statefulSet", ${rfc3339('recorded_at')} AS at, metadata ->> 'actor' AS actor, position
         FROM events WHERE type IN ('IpAllocated', 'IpReleased') AND data ->> 'ip' = $1
       UNION ALL
       SELECT type, NULL, data ->> 'pool', NULL, data ->> 'namespace', NULL, data ->> 'name', ${rfc3339('recorded_at')}, metadata ->> 'actor', position
         FROM events WHERE type = 'RangeReserved' AND $1::inet BETWEEN (data ->> 'start')::inet AND (data ->> 'end')::inet
       ORDER BY position`,
      [ip],
    ),
  );
  return rows.map(({ position: _position, ...item }) => {
    // an ip-set is a range named `<Kind>:<name>` (ip-set.ts): said as such, not as a StatefulSet
    const ipSet = item.statefulSet !== null && item.namespace !== null ? ipSetOfRange(item.namespace, item.statefulSet) : null;
    return ipSet ? { ...item, statefulSet: null, ipSet: { kind: ipSet.kind, name: ipSet.name } } : { ...item, ipSet: null };
  });
}
