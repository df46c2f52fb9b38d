import { clusterOf, namespaceKey, type StatefulSetEvent, type StatefulSetReconciled } from '@ipledger/domain';
import { prepared, type RecordedEvent } from '@ipledger/event-store';
import type { Queryable } from './queryable';
import { insertSql, rowParams } from './row-sql';

export interface StatefulSetRow {
  cluster: string;
  /** namespaceKey: the key the previous release's upserts (ON CONFLICT (namespace, name)) still find */
  namespace: string;
  name: string;
  replicas: number;
  ordinals_start: number;
  pool: string | null;
  mode: string;
  range_start: string | null;
  range_end: string | null;
  reason: string | null;
  version: number;
  updated_at: Date;
}

const COLUMNS: readonly (keyof StatefulSetRow)[] = [
  'cluster',
  'namespace',
  'name',
  'replicas',
  'ordinals_start',
  'pool',
  'mode',
  'range_start',
  'range_end',
  'reason',
  'version',
  'updated_at',
];
const UPSERT = insertSql('statefulsets', COLUMNS, ['namespace', 'name']);

/** The statefulsets row a StatefulSetReconciled leaves (inline and in a batch rebuild alike). */
export function statefulSetRow(event: Pick<RecordedEvent, 'data' | 'version' | 'recordedAt'>): StatefulSetRow {
  const d = event.data as StatefulSetReconciled['data'];
  return {
    cluster: clusterOf(d),
    namespace: namespaceKey(clusterOf(d), d.namespace),
    name: d.name,
    replicas: d.replicas,
    ordinals_start: d.ordinalsStart,
    pool: d.pool,
    mode: d.mode,
    range_start: d.range?.start ?? null,
    range_end: d.range?.end ?? null,
    reason: d.reason,
    version: event.version,
    updated_at: event.recordedAt,
  };
}

/** statefulsets: each StatefulSet's last reconciled outcome, by (namespaceKey, name). */
export async function projectStatefulSetEvent(db: Queryable, event: RecordedEvent): Promise<void> {
  const e = { type: event.type, data: event.data } as StatefulSetEvent;
  if (e.type === 'StatefulSetReconciled') {
    await db.query(prepared(UPSERT, rowParams(statefulSetRow(event), COLUMNS)));
  } else if (e.type === 'StatefulSetDeleted') {
    await db.query(
      prepared('DELETE FROM statefulsets WHERE namespace = $1 AND name = $2', [
        namespaceKey(clusterOf(e.data), e.data.namespace),
        e.data.name,
      ]),
    );
  }
}
