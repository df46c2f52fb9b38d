-- Pools handed to nodes in blocks (issue 24). Additive: a release without blocks writes none of
-- these columns and no pool_blocks row, and reads them as absent.
ALTER TABLE pools
  ADD COLUMN block_size smallint,
  ADD COLUMN block_affinity text,
  ADD COLUMN block_release_seconds integer;

-- true when the address came from another node's block
ALTER TABLE allocations ADD COLUMN borrowed boolean;

-- The claimed blocks: what a route controller announces. Used and borrowed counts are read from
-- allocations at query time, so the allocation hot path writes nothing here.
CREATE TABLE pool_blocks (
  pool       text NOT NULL REFERENCES pools (name) ON DELETE CASCADE,
  cidr       cidr NOT NULL,
  node       text NOT NULL,
  claimed_at timestamptz NOT NULL,
  PRIMARY KEY (pool, cidr)
);
CREATE INDEX pool_blocks_node ON pool_blocks (node, pool, cidr);
