-- A watcher watches one cluster (IPAM_CLUSTER), and one consumer applies every cluster's messages.
-- What it keeps of a Kubernetes object, a sync, a node's readiness, a held address or a leak
-- suspect is its cluster's: `cluster` names it (every row of before is the default cluster's), and
-- another cluster's object, sync item and node keys carry its name (`east/worker-1`,
-- `east/shop/web-0`), so the same Node in two clusters is two rows under the keys the previous
-- release writes by (a DNS label holds no `/`, and a default key's count of `/` tells its kind's).
ALTER TABLE kubernetes_objects ADD COLUMN cluster text NOT NULL DEFAULT 'default';
ALTER TABLE kubernetes_syncs ADD COLUMN cluster text NOT NULL DEFAULT 'default';
CREATE INDEX kubernetes_syncs_cluster_completed ON kubernetes_syncs (cluster, kind, completed_at DESC) WHERE completed_at IS NOT NULL;
ALTER TABLE kubernetes_held_addresses ADD COLUMN cluster text NOT NULL DEFAULT 'default';
ALTER TABLE kubernetes_leak_suspects ADD COLUMN cluster text NOT NULL DEFAULT 'default';
