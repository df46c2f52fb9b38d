import { prepared } from '@ipledger/event-store';
import type { Labels } from '@ipledger/domain';
import type { Queryable } from './queryable';
import { rfc3339 } from './rfc3339';

export interface NodeView {
  name: string;
  labels: Labels;
  version: number;
  updatedAt: string;
}

export async function findNode(db: Queryable, name: string): Promise<NodeView | null> {
  const { rows } = await db.query<NodeView>(
    prepared(`SELECT name, labels, version, ${rfc3339('updated_at')} AS "updatedAt" FROM nodes WHERE name = $1`, [name]),
  );
  return rows[0] ?? null;
}
