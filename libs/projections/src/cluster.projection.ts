import { prepared, type RecordedEvent } from '@ipledger/event-store';
import type { ClusterEvent, ClusterLabelsSet } from '@ipledger/domain';
import type { Queryable } from './queryable';
import { rowParams } from './row-sql';

export interface ClusterRow {
  name: string;
  labels: Record<string, string>;
  version: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS: readonly (keyof ClusterRow)[] = ['name', 'labels', 'version', 'created_at', 'updated_at'];
/** A label change keeps the time the cluster was created (a deletion drops the row: a new cluster of that name is created anew). */
const UPSERT = `INSERT INTO clusters (${COLUMNS.join(', ')}) VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (name) DO UPDATE SET labels = excluded.labels, version = excluded.version, updated_at = excluded.updated_at`;

/** The clusters row a ClusterLabelsSet leaves over `before` (inline and in a batch rebuild alike). */
export function clusterRow(event: Pick<RecordedEvent, 'data' | 'version' | 'recordedAt'>, before: ClusterRow | undefined): ClusterRow {
  const d = event.data as ClusterLabelsSet['data'];
  return {
    name: d.name,
    labels: d.labels,
    version: event.version,
    created_at: before?.created_at ?? event.recordedAt,
    updated_at: event.recordedAt,
  };
}

export async function projectClusterEvent(db: Queryable, event: RecordedEvent): Promise<void> {
  const e = { type: event.type, data: event.data } as ClusterEvent;
  if (e.type === 'ClusterLabelsSet') await db.query(prepared(UPSERT, rowParams(clusterRow(event, undefined), COLUMNS)));
  else if (e.type === 'ClusterDeleted') await db.query(prepared('DELETE FROM clusters WHERE name = $1', [e.data.name]));
}
