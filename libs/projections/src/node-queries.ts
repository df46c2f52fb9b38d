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

/** A node as NodeView names it. */
export const NODE_SELECT = `SELECT name, labels, version, ${rfc3339('updated_at')} AS "updatedAt" FROM nodes`;

export async function findNode(db: Queryable, name: string): Promise<NodeView | null> {
  return (await findNodes(db, [name]))[0];
}

/** Several nodes at once (null for an unknown name), in the order asked. */
export async function findNodes(db: Queryable, names: readonly string[]): Promise<Array<NodeView | null>> {
  const { rows } = await db.query<NodeView>(prepared(`${NODE_SELECT} WHERE name = ANY($1)`, [names]));
  const byName = new Map(rows.map((row) => [row.name, row]));
  return names.map((name) => byName.get(name) ?? null);
}
