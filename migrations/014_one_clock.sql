-- One clock for every leak and grace decision: the database's. When a sync marker's first chunk
-- arrived stands for its list (an address allocated later is not missed by it); listed_at, the
-- watcher's clock, is kept for the record only.
ALTER TABLE kubernetes_syncs ADD COLUMN received_at timestamptz NOT NULL DEFAULT now();
