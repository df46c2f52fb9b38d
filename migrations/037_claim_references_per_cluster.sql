-- A claim's reference is a handle of one cluster (handles are per cluster): a migration between
-- clusters may carry the same handle (an external caller's workload id) in both, and two clusters'
-- pods of one namespace and name are two pods. Rows keep their values; only the keys change.
-- contract: claim_references is this release's own (035): the previous release neither reads nor writes it
ALTER TABLE claim_references DROP CONSTRAINT claim_references_pkey, ADD PRIMARY KEY (cluster, handle);
-- contract: an index of this release's own table (035), replaced by one that leads with the cluster
DROP INDEX claim_references_pod;
CREATE INDEX claim_references_pod ON claim_references (cluster, namespace, pod);
