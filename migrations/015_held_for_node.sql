-- Whether each node is Ready, as its Node messages said, and since when it is not (the database's
-- clock): a pod deleted while its node is not Ready keeps its addresses for a while.
CREATE TABLE kubernetes_node_readiness (
  node            text PRIMARY KEY,
  ready           boolean NOT NULL,
  -- the last time a message found the node Ready, or the moment one found it no longer so
  last_ready_at   timestamptz NOT NULL,
  stream_sequence bigint NOT NULL
);

-- Addresses of deleted pods whose sandbox may still use them (node not Ready, or force-deleted
-- with containers running): not released until the node's CNI DEL or GC, the node's deletion, or
-- IPAM_UNREACHABLE_NODE_GRACE_SECONDS after the node was last Ready.
CREATE TABLE kubernetes_held_addresses (
  handle    text PRIMARY KEY,
  node      text NOT NULL,
  namespace text NOT NULL,
  pod       text NOT NULL,
  pod_uid   text NOT NULL,
  -- node-not-ready | containers-running
  cause     text NOT NULL,
  held_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX kubernetes_held_addresses_node ON kubernetes_held_addresses (node);
