-- Nodes and allocations per cluster (issue 35): two clusters may each have a node `worker-1` and
-- a handle `abc:eth0`. Every existing row is the default cluster's (the column's default), as
-- everything written before clusters is; the previous release writes rows without the column and
-- so into the default cluster, which is where its callers act.
ALTER TABLE nodes ADD COLUMN cluster text NOT NULL DEFAULT 'default';
ALTER TABLE allocations ADD COLUMN cluster text NOT NULL DEFAULT 'default';

-- contract: the primary keys keep their names and SQLSTATE 23505 and allow strictly more (the same name or handle in another cluster); every existing row is in one cluster, so none conflicts
ALTER TABLE nodes
  DROP CONSTRAINT nodes_pkey,
  ADD CONSTRAINT nodes_pkey PRIMARY KEY (cluster, name);
-- contract: the same for allocations: the same name and SQLSTATE, strictly more allowed (the same handle in another cluster); the previous release's retry reads nothing of it but those
ALTER TABLE allocations
  DROP CONSTRAINT allocations_pkey,
  ADD CONSTRAINT allocations_pkey PRIMARY KEY (cluster, handle, family);
