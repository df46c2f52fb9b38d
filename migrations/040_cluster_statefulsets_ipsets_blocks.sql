-- StatefulSet reservations and ip-sets per cluster (issue 35): two clusters may each have a
-- StatefulSet `shop/db`. Every existing row is the default cluster's (the column's default), as
-- everything written before clusters is; the previous release writes rows without the column and
-- so into the default cluster, which is where its callers act.
ALTER TABLE statefulsets ADD COLUMN cluster text NOT NULL DEFAULT 'default';
ALTER TABLE pool_ranges ADD COLUMN cluster text NOT NULL DEFAULT 'default';

-- The primary keys stay: another cluster's rows are stored under the namespace key
-- `<cluster>/<namespace>` (namespaceKey; neither name holds a `/`), so the previous release's
-- upserts (ON CONFLICT (namespace, name), (pool, namespace, name)) still find theirs.

-- whether a cluster still holds a reservation or an ip-set (DELETE /v1/clusters/{name}), one probe
CREATE INDEX statefulsets_cluster ON statefulsets (cluster);
CREATE INDEX pool_ranges_cluster ON pool_ranges (cluster, namespace, name);

-- Node blocks per cluster: a block belongs to a node of one cluster (two clusters' `worker-1` claim
-- blocks of their own). The key (pool, cidr) stays; existing blocks are the default cluster's.
ALTER TABLE pool_blocks ADD COLUMN cluster text NOT NULL DEFAULT 'default';
CREATE INDEX pool_blocks_cluster_node ON pool_blocks (cluster, node, pool, cidr);
