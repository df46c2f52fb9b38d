import { ipSetOfRange, type IpSetKind } from '@ipledger/domain';
import { prepared } from '@ipledger/event-store';
import { eventClusterSql } from './cluster-key-sql';
import { decodeContinue, encodeContinue } from './continue-token';
import type { Page } from './pool-queries';
import type { Queryable } from './queryable';
import { rfc3339 } from './rfc3339';

export interface IpHistoryItem {
  type: 'IpAllocated' | 'IpReleased' | 'RangeReserved' | 'ClaimReferenceAdded' | 'ClaimReferenceDropped';
  handle: string | null;
  pool: string;
  /** the pool's isolated network, the space the address was held or reserved in; null: the shared space */
  network: string | null;
  node: string | null;
  namespace: string | null;
  pod: string | null;
  /** the StatefulSet a range belongs to, for reservation entries */
  statefulSet: string | null;
  /** the Deployment or ReplicaSet whose ip-set a range is, for reservation entries (in `namespace`) */
  ipSet: { kind: IpSetKind; name: string } | null;
  /** the cluster of the handle (for a claim's reference: the reference's), or of the StatefulSet or ip-set */
  cluster: string;
  /** for a claim's reference taken or dropped: the claim (`handle`, `node`, `namespace`, `pod` are the reference's) */
  claim?: string;
  at: string;
  actor: string | null;
}

/**
 * The allocations and releases of one address, and the StatefulSet ranges and ip-sets reserved over
 * it, oldest first, read from the log itself (the read models only know the present): a page of
 * `limit` after the `continue` token's position, however often the address was reused. Each names
 * its cluster (absent in the event: the default cluster) and its pool's network (the event's
 * poolNetwork; absent: the shared space); `network` narrows to that network's. A claim's reference
 * event records no network: its address's is that of the last allocation of the address to the
 * claim's holding (claimHolding: `@<name>`) before it (the same address in another network is held
 * by another handle).
 */
export async function ipHistory(
  db: Queryable,
  ip: string,
  page: { limit: number; continue?: string; network?: string },
): Promise<Page<IpHistoryItem>> {
  const [after] = decodeContinue(page.continue, ['bigint']) ?? [0];
  const narrowed = `($4::text IS NULL OR network = $4)`;
  const { rows } = await db.query<Omit<IpHistoryItem, 'ipSet' | 'claim'> & { position: string; claim: string | null }>(
    prepared(
      `SELECT * FROM (
         SELECT type, data ->> 'handle' AS handle, data ->> 'pool' AS pool, data ->> 'poolNetwork' AS network, data ->> 'node' AS node,
                data ->> 'namespace' AS namespace, data ->> 'pod' AS pod, NULL AS "statefulSet", ${rfc3339('recorded_at')} AS at,
                metadata ->> 'actor' AS actor, position, NULL AS claim, ${eventClusterSql('data')} AS cluster
           FROM events WHERE type IN ('IpAllocated', 'IpReleased') AND data ->> 'ip' = $1 AND position > $2
         UNION ALL
         SELECT type, NULL, data ->> 'pool', data ->> 'poolNetwork', NULL, data ->> 'namespace', NULL, data ->> 'name', ${rfc3339('recorded_at')},
                metadata ->> 'actor', position, NULL, ${eventClusterSql('data')}
           FROM events WHERE type = 'RangeReserved' AND $1::inet BETWEEN (data ->> 'start')::inet AND (data ->> 'end')::inet AND position > $2
         UNION ALL
         SELECT e.type, e.data ->> 'handle', a.address ->> 'pool', held.network, e.data ->> 'node', e.data ->> 'namespace', e.data ->> 'pod', NULL,
                ${rfc3339('e.recorded_at')}, e.metadata ->> 'actor', e.position, e.data ->> 'name', e.data ->> 'cluster'
           FROM events e CROSS JOIN LATERAL jsonb_array_elements(e.data -> 'addresses') a(address)
           LEFT JOIN LATERAL (
             SELECT h.data ->> 'poolNetwork' AS network FROM events h
              WHERE h.type = 'IpAllocated' AND h.data ->> 'ip' = $1 AND h.data ->> 'handle' = '@' || (e.data ->> 'name') AND h.position < e.position
              ORDER BY h.position DESC LIMIT 1
           ) held ON true
          WHERE e.type IN ('ClaimReferenceAdded', 'ClaimReferenceDropped') AND e.data -> 'addresses' @> jsonb_build_array(jsonb_build_object('ip', $1::text))
            AND a.address ->> 'ip' = $1 AND e.position > $2
       ) history WHERE ${narrowed}
       ORDER BY position LIMIT $3`,
      [ip, after, page.limit + 1, page.network ?? null],
    ),
  );
  const items = rows.slice(0, page.limit).map(({ position: _position, claim, ...item }) => {
    if (claim !== null) return { ...item, claim, ipSet: null };
    // an ip-set is a range named `<Kind>:<name>` (ip-set.ts): said as such, not as a StatefulSet
    const ipSet = item.statefulSet !== null && item.namespace !== null ? ipSetOfRange(item.namespace, item.statefulSet) : null;
    return ipSet ? { ...item, statefulSet: null, ipSet: { kind: ipSet.kind, name: ipSet.name } } : { ...item, ipSet: null };
  });
  const last = rows[page.limit - 1];
  return { items, continue: rows.length > page.limit ? encodeContinue([Number(last.position)]) : null };
}
