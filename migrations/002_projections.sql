-- Read models. They are written in the same transaction as the events they follow (inline
-- projections), so a GET right after a write shows it and their constraints are a second line of
-- defence: one address, one holder (allocations.ip unique); pools never overlap (exclusion).

CREATE TABLE pools (
  name            text PRIMARY KEY,
  cidr            cidr NOT NULL,
  family          smallint NOT NULL,
  labels          jsonb NOT NULL DEFAULT '{}',
  node_selector   text,
  reserved        jsonb NOT NULL DEFAULT '[]',
  disabled        boolean NOT NULL DEFAULT false,
  capacity        numeric(40, 0) NOT NULL,
  allocated       numeric(40, 0) NOT NULL DEFAULT 0,
  reserved_count  numeric(40, 0) NOT NULL DEFAULT 0,
  version         integer NOT NULL,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  CONSTRAINT pools_cidr_no_overlap EXCLUDE USING gist (cidr inet_ops WITH &&)
);
-- Pool labels, one row a label, for selection: `key = k AND value = v` is a b-tree range that
-- yields the matching pools already in name order, so a selection costs what it matches, not the
-- number of pools (pools.labels keeps the map for display).
CREATE TABLE pool_labels (
  key    text NOT NULL,
  value  text NOT NULL,
  pool   text NOT NULL REFERENCES pools (name) ON DELETE CASCADE,
  PRIMARY KEY (key, value, pool)
);
CREATE INDEX pool_labels_pool ON pool_labels (pool);

CREATE TABLE nodes (
  name        text PRIMARY KEY,
  labels      jsonb NOT NULL DEFAULT '{}',
  version     integer NOT NULL,
  updated_at  timestamptz NOT NULL
);

CREATE TABLE allocations (
  handle         text NOT NULL,
  family         smallint NOT NULL,
  ip             inet NOT NULL,
  pool           text NOT NULL,
  node           text NOT NULL,
  namespace      text NOT NULL,
  pod            text NOT NULL,
  pod_uid        text,
  allocated_at   timestamptz NOT NULL,
  PRIMARY KEY (handle, family),
  CONSTRAINT allocations_ip_unique UNIQUE (ip)
);
CREATE INDEX allocations_pool ON allocations (pool, ip);
CREATE INDEX allocations_node ON allocations (node);
CREATE INDEX allocations_pod ON allocations (namespace, pod);
