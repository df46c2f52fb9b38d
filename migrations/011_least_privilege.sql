-- Least privilege for the service role (issue 20): it may add to what aggregates are loaded from,
-- never rewrite it. Migration 008 granted every write on every table; here the service keeps
-- SELECT and INSERT on the log, its chain (010) and the snapshots, SELECT only on
-- schema_migrations, and the read models keep what their projections do (insert, update, delete).

-- Snapshots become insert-only rows, the newest version of a stream winning on read, so a
-- snapshot is never overwritten in place. The previous release's `snapshots` (one row a stream,
-- upserted) stays for its SQL: it still reads it (an older snapshot only means a longer tail to
-- replay), and its snapshot writes are now refused, which it logs and carries on.
CREATE TABLE stream_snapshots (
  stream_id text        NOT NULL,
  version   integer     NOT NULL CHECK (version >= 1),
  state     jsonb       NOT NULL,
  taken_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (stream_id, version)
);
INSERT INTO stream_snapshots (stream_id, version, state, taken_at) SELECT stream_id, version, state, taken_at FROM snapshots;

CREATE TRIGGER stream_snapshots_append_only BEFORE UPDATE OR DELETE ON stream_snapshots
  FOR EACH ROW EXECUTE FUNCTION events_refuse_change();

REVOKE UPDATE, DELETE, TRUNCATE ON snapshots, stream_snapshots FROM ipledger_service, PUBLIC;
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON schema_migrations FROM ipledger_service, PUBLIC;
