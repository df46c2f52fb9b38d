-- StatefulSet reservations. A range lives in the pool that holds it (pool_ranges, written from the
-- pool's own events); the StatefulSet's desired state and outcome live in statefulsets.

CREATE TABLE pool_ranges (
  pool       text NOT NULL REFERENCES pools (name) ON DELETE CASCADE,
  namespace  text NOT NULL,
  name       text NOT NULL,
  first_ip   inet NOT NULL,
  last_ip    inet NOT NULL,
  PRIMARY KEY (pool, namespace, name)
);

-- addresses of StatefulSet ranges that no pod holds now: part of a pool's reservedCount
ALTER TABLE pools ADD COLUMN range_reserved numeric(40, 0) NOT NULL DEFAULT 0;

CREATE TABLE statefulsets (
  namespace       text NOT NULL,
  name            text NOT NULL,
  replicas        integer NOT NULL,
  ordinals_start  integer NOT NULL,
  pool            text,
  mode            text NOT NULL,
  range_start     inet,
  range_end       inet,
  reason          text,
  version         integer NOT NULL,
  updated_at      timestamptz NOT NULL,
  PRIMARY KEY (namespace, name)
);

-- addresses owned by a StatefulSet (its pods' addresses), released with it
ALTER TABLE allocations ADD COLUMN statefulset text, ADD COLUMN ordinal integer;
CREATE INDEX allocations_statefulset ON allocations (namespace, statefulset) WHERE statefulset IS NOT NULL;
