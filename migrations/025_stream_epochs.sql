-- Streams that come back (issue 32). A JetStream stream made again (NATS restarted without its
-- store, a stream deleted by an operator) numbers its messages from 1 again, so the Kubernetes
-- consumer orders an object's messages by (stream epoch, stream sequence): the epoch numbers the
-- streams in the order the consumer first bound to each (apps/api/src/kubernetes/stream-epochs.ts).

CREATE TABLE kubernetes_streams (
  epoch    bigint PRIMARY KEY,
  stream   text NOT NULL,
  -- StreamInfo.created as NATS tells it: a stream made again has another
  created  text NOT NULL,
  bound_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (stream, created)
);

-- Rows written before are of epoch 0, the first stream bound after the upgrade: usually the very
-- stream they came from. The default stays for the previous release, whose writes leave it out
-- during a rolling update (they are of that same stream).
ALTER TABLE kubernetes_objects ADD COLUMN stream_epoch bigint NOT NULL DEFAULT 0;
ALTER TABLE kubernetes_node_readiness ADD COLUMN stream_epoch bigint NOT NULL DEFAULT 0;
