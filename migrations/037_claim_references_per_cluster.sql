-- A claim's reference is a handle of one cluster (handles are per cluster): a migration between
-- clusters may carry the same handle (an external caller's workload id) in both, and two clusters'
-- pods of one namespace and name are two pods. Rows keep their values; only the keys change.
ALTER TABLE claim_references DROP CONSTRAINT claim_references_pkey, ADD PRIMARY KEY (cluster, handle);
DROP INDEX claim_references_pod;
CREATE INDEX claim_references_pod ON claim_references (cluster, namespace, pod);
