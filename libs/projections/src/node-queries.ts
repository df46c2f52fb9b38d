import { prepared } from '@ipledger/event-store';
import { DEFAULT_CLUSTER, type Labels } from '@ipledger/domain';
import type { Queryable } from './queryable';
import { rfc3339 } from './rfc3339';

export interface NodeView {
  name: string;
  cluster: string;
  labels: Labels;
  version: number;
  updatedAt: string;
}

/** A node as NodeView names it. */
export const NODE_SELECT = `SELECT name, cluster, labels, version, ${rfc3339('updated_at')} AS "updatedAt" FROM nodes`;

export async function findNode(db: Queryable, name: string, cluster = DEFAULT_CLUSTER): Promise<NodeView | null> {
  return (await findNodes(db, [name], cluster))[0];
}

/** Several nodes of a cluster at once (null for an unknown name), in the order asked. */
export async function findNodes(db: Queryable, names: readonly string[], cluster = DEFAULT_CLUSTER): Promise<Array<NodeView | null>> {
  const { rows } = await db.query<NodeView>(prepared(`${NODE_SELECT} WHERE cluster = $1 AND name = ANY($2)`, [cluster, names]));
  const byName = new Map(rows.map((row) => [row.name, row]));
  return names.map((name) => byName.get(name) ?? null);
}
