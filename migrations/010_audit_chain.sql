-- Tamper evidence an auditor can rely on (issue 20): one global hash chain over every event, in
-- the feed's commit order. Link n covers the n-th committed event of the feed (every column of it)
-- and link n-1; its hash is computed in TypeScript (libs/event-store/src/event-link.ts) by the
-- API's background sealer, never by a database function, so appends are not serialised for it and
-- the owner cannot redefine how it is checked. GET /v1/audit/head publishes the last link, to be
-- kept outside the database and checked with `ipledger verify-chain --head <count>:<hash>`.
CREATE TABLE event_links (
  seq            bigint      PRIMARY KEY CHECK (seq >= 1),
  -- the event it covers, and with transaction_id the feed cursor the sealer continues from
  position       bigint      NOT NULL UNIQUE,
  transaction_id xid8        NOT NULL,
  hash           bytea       NOT NULL,
  sealed_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TRIGGER event_links_append_only BEFORE UPDATE OR DELETE ON event_links
  FOR EACH ROW EXECUTE FUNCTION events_refuse_change();
CREATE TRIGGER event_links_no_truncate BEFORE TRUNCATE ON event_links
  FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change();
-- 008's default privileges gave the service every write: the sealer only reads and inserts links
REVOKE UPDATE, DELETE, TRUNCATE ON event_links FROM ipledger_service, PUBLIC;

-- The per-stream chain of 005 is what the global chain replaces: it covered four columns, let a
-- stream's tail or a whole stream vanish unseen, and cost every append a plpgsql call. Its trigger
-- leaves the append path; the column (now left empty for new events) and events_link_hash stay,
-- so the previous release's SQL still runs on this schema.
DROP TRIGGER events_chain ON events;
ALTER TABLE events ALTER COLUMN hash DROP NOT NULL;
