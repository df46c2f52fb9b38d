-- Nodes and allocations per cluster (issue 35): two clusters may each have a node `worker-1` and
-- a handle `abc:eth0`. Every existing row is the default cluster's (the column's default), as
-- everything written before clusters is; the previous release writes rows without the column and
-- so into the default cluster, which is where its callers act.
ALTER TABLE nodes ADD COLUMN cluster text NOT NULL DEFAULT 'default';
ALTER TABLE allocations ADD COLUMN cluster text NOT NULL DEFAULT 'default';

-- A node keeps its primary key (name): another cluster's node is stored under its key
-- `<cluster>/<name>` (nodeStreamId; neither name holds a `/`), so the previous release's upserts
-- (ON CONFLICT (name)) still find theirs, and two clusters' `worker-1` are two rows.

-- contract: allocations' primary key keeps its name and SQLSTATE 23505 and allows strictly more (the same handle in another cluster); the previous release's retry reads nothing of it but those
ALTER TABLE allocations
  DROP CONSTRAINT allocations_pkey,
  ADD CONSTRAINT allocations_pkey PRIMARY KEY (cluster, handle, family);
