import { prepared } from '@ipledger/event-store';
import type { NodeEvent } from '@ipledger/domain';
import type { RecordedEvent } from '@ipledger/event-store';
import type { Queryable } from './queryable';

export async function projectNodeEvent(db: Queryable, event: RecordedEvent): Promise<void> {
  const e = { type: event.type, data: event.data } as NodeEvent;
  if (e.type === 'NodeLabelsSet') {
    await db.query(
      prepared(
        `INSERT INTO nodes (name, labels, version, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (name) DO UPDATE SET labels = excluded.labels, version = excluded.version, updated_at = excluded.updated_at`,
        [e.data.name, e.data.labels, event.version, event.recordedAt],
      ),
    );
  } else if (e.type === 'NodeDeleted') {
    await db.query(prepared('DELETE FROM nodes WHERE name = $1', [e.data.name]));
  }
}
