-- The clusters that may allocate from a pool, by their labels (a label selector); null: every cluster.
ALTER TABLE pools ADD COLUMN cluster_selector text;
