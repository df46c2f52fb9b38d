-- Clusters (issue 35): the members of the fleet one ledger serves. Additive: the previous release
-- neither reads nor writes the table. The cluster `default` has no row until its labels are set:
-- it always exists (the queries answer it), and everything written before clusters belongs to it.
CREATE TABLE clusters (
  name        text PRIMARY KEY,
  labels      jsonb NOT NULL DEFAULT '{}',
  version     integer NOT NULL,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL
);
