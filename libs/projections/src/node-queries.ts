import type { Labels } from '@ipledger/domain';
import type { Queryable } from './queryable';

export interface NodeView {
  name: string;
  labels: Labels;
  version: number;
  updatedAt: string;
}

export async function findNode(db: Queryable, name: string): Promise<NodeView | null> {
  const { rows } = await db.query('SELECT name, labels, version, updated_at FROM nodes WHERE name = $1', [name]);
  const row = rows[0];
  return row ? { name: row.name, labels: row.labels, version: row.version, updatedAt: row.updated_at.toISOString() } : null;
}
