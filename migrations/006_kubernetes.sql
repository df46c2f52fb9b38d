-- What the Kubernetes consumer has seen. Not read models of the event log (a replay does not
-- rebuild them): the watcher's messages are their source.

-- The last applied message per object: a redelivered older message never overwrites a newer one,
-- live pods answer the leak collector's re-check, and `status` records why an object was refused.
-- `object` keeps the last StatefulSet, so one left without a range can be reconciled again later.
CREATE TABLE kubernetes_objects (
  kind             text NOT NULL,
  key              text NOT NULL,
  uid              text NOT NULL,
  resource_version text NOT NULL,
  stream_sequence  bigint NOT NULL,
  deleted          boolean NOT NULL,
  status           text NOT NULL,
  object           jsonb,
  -- [{syncId, listedAt}]: the consecutive complete syncs that did not list the object (NULL: listed or seen since)
  missing_syncs    jsonb,
  updated_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, key)
);

-- Sync markers, assembled from their chunks: every live key of a kind at one list.
CREATE TABLE kubernetes_syncs (
  sync_id          uuid PRIMARY KEY,
  kind             text NOT NULL,
  resource_version text NOT NULL,
  listed_at        timestamptz NOT NULL,
  chunks           integer NOT NULL,
  received         integer[] NOT NULL DEFAULT '{}',
  completed_at     timestamptz
);
CREATE INDEX kubernetes_syncs_completed ON kubernetes_syncs (kind, completed_at DESC) WHERE completed_at IS NOT NULL;

CREATE TABLE kubernetes_sync_items (
  sync_id uuid NOT NULL REFERENCES kubernetes_syncs ON DELETE CASCADE,
  key     text NOT NULL,
  uid     text NOT NULL,
  PRIMARY KEY (sync_id, key)
);

-- Addresses whose pod a completed pod sync did not list: the evidence leak collection acts on.
CREATE TABLE kubernetes_leak_suspects (
  handle    text PRIMARY KEY,
  namespace text NOT NULL,
  pod       text NOT NULL,
  pod_uid   text,
  -- [{syncId, listedAt}], oldest first; the last one is the latest sync that missed the pod
  syncs     jsonb NOT NULL
);
