import { prepared } from '@ipledger/event-store';
import { DEFAULT_CLUSTER, nodeStreamId, type Labels } from '@ipledger/domain';
import type { Queryable } from './queryable';
import { rfc3339 } from './rfc3339';
import { clusterKeySql, unkeyedSql } from './cluster-key-sql';

export interface NodeView {
  name: string;
  cluster: string;
  labels: Labels;
  version: number;
  updatedAt: string;
}

/** The stored key of a node (SQL), as nodeStreamId makes it: the table keeps its primary key (name). */
export const nodeKeySql = clusterKeySql;

/** A node as NodeView names it: its name without its cluster's prefix. */
export const NODE_SELECT = `SELECT ${unkeyedSql('cluster', 'name')} AS name,
  cluster, labels, version, ${rfc3339('updated_at')} AS "updatedAt" FROM nodes`;

export async function findNode(db: Queryable, name: string, cluster = DEFAULT_CLUSTER): Promise<NodeView | null> {
  return (await findNodes(db, [name], cluster))[0];
}

/** Several nodes of a cluster at once (null for an unknown name), in the order asked. */
export async function findNodes(db: Queryable, names: readonly string[], cluster = DEFAULT_CLUSTER): Promise<Array<NodeView | null>> {
  const keys = names.map((name) => nodeStreamId(cluster, name));
  const { rows } = await db.query<NodeView>(prepared(`${NODE_SELECT} WHERE name = ANY($1)`, [keys]));
  const byName = new Map(rows.map((row) => [row.name, row]));
  return names.map((name) => byName.get(name) ?? null);
}
