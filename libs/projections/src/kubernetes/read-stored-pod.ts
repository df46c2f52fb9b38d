import { prepared } from '@ipledger/event-store';
import { NODE_SELECT, type NodeView } from '../node-queries';
import { POOL_COLUMNS, type PoolView } from '../pool-queries';
import type { Queryable } from '../queryable';

/** The metadata kept of a pod or a namespace that allocation reads. */
export type StoredMeta = {
  annotations?: Record<string, unknown>;
  labels?: Record<string, string>;
  ownerReferences?: Array<{ kind?: string; name?: string; controller?: boolean }>;
  creationTimestamp?: string;
};

export interface StoredPodRow {
  objects: Array<{ kind: 'pod' | 'namespace'; uid: string; deleted: boolean; meta: StoredMeta | null; node: string | null }>;
  node: NodeView | null;
  named: string[];
  pools: PoolView[];
}

// $3 null (an allocation, whose start reads node and pools anyway) reads neither node nor pools;
// `named` are the names looked up, so a caller knows a pool missing from `pools` does not exist
const STORED_QUERY = `WITH objects AS (
    SELECT kind, uid, deleted, object -> 'metadata' AS meta, object -> 'spec' ->> 'nodeName' AS node FROM kubernetes_objects
     WHERE (kind = 'pod' AND key = $1) OR (kind = 'namespace' AND key = $2)
  ), named AS (
    SELECT DISTINCT trim(name) AS name
      FROM objects o, unnest(string_to_array(o.meta -> 'annotations' ->> 'ipam.ipledger.io/pools', ',')) name
     WHERE NOT o.deleted AND $3::text IS NOT NULL
  )
  SELECT (SELECT coalesce(json_agg(o), '[]') FROM objects o) AS objects,
    (SELECT row_to_json(n) FROM (${NODE_SELECT} WHERE name = $3) n) AS node,
    (SELECT coalesce(array_agg(name), '{}') FROM named) AS named,
    (SELECT coalesce(json_agg(p), '[]') FROM (SELECT ${POOL_COLUMNS} FROM pools p WHERE p.name = ANY (ARRAY(SELECT name FROM named))) p) AS pools`;

/**
 * A pod's row (`podKey` namespace/name; null: none) and its namespace's as the Kubernetes consumer
 * last applied them, in one statement; with `node`, also that node and the pools the rows'
 * `pools` annotations name.
 */
export async function readStoredPod(db: Queryable, podKey: string | null, namespace: string, node: string | null): Promise<StoredPodRow> {
  const { rows } = await db.query<StoredPodRow>(prepared(STORED_QUERY, [podKey, namespace, node]));
  return rows[0];
}
