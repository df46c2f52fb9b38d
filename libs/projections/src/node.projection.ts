import { prepared } from '@ipledger/event-store';
import { clusterOf, nodeStreamId, type NodeEvent, type NodeLabelsSet } from '@ipledger/domain';
import type { RecordedEvent } from '@ipledger/event-store';
import type { Queryable } from './queryable';
import { insertRowsSql } from './row-sql';

export interface NodeRow {
  cluster: string;
  /** the node's key (nodeStreamId): its name in the default cluster, `<cluster>/<name>` in another */
  name: string;
  labels: Record<string, string>;
  version: number;
  updated_at: Date;
}

const COLUMNS: readonly (keyof NodeRow)[] = ['cluster', 'name', 'labels', 'version', 'updated_at'];
// the key stays the primary key it was before clusters: the previous release's upserts (ON CONFLICT (name)) still find it
const UPSERT_ROWS = insertRowsSql('nodes', COLUMNS, ['name']);

/** A node's key across clusters (its stream id: the same name in two clusters is two nodes). */
export const nodeKey = (data: { name: string; cluster?: string }): string => nodeStreamId(clusterOf(data), data.name);

/** The nodes row a NodeLabelsSet leaves (inline and in a batch rebuild alike). */
export function nodeRow(event: Pick<RecordedEvent, 'data' | 'version' | 'recordedAt'>): NodeRow {
  const d = event.data as NodeLabelsSet['data'];
  return { cluster: clusterOf(d), name: nodeKey(d), labels: d.labels, version: event.version, updated_at: event.recordedAt };
}

export async function projectNodeEvent(db: Queryable, event: RecordedEvent): Promise<void> {
  const e = { type: event.type, data: event.data } as NodeEvent;
  // NodeLabelsSet is projected in runs (projectEvents: projectNodeLabelRun)
  if (e.type === 'NodeDeleted') await db.query(prepared('DELETE FROM nodes WHERE name = $1', [nodeKey(e.data)]));
}

/** A run of NodeLabelsSet (a batch of Node messages) in one statement (nodeRow), a node's last event winning. */
export async function projectNodeLabelRun(db: Queryable, events: readonly RecordedEvent[]): Promise<void> {
  const rows = new Map(events.map((event) => [nodeKey(event.data as NodeLabelsSet['data']), nodeRow(event)]));
  await db.query(prepared(UPSERT_ROWS, [JSON.stringify([...rows.values()])]));
}
