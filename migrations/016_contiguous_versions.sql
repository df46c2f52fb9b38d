-- A stream's versions have no gap: an event at version N+1 lands only on a stream whose head is N.
-- The unique (stream_id, version) key catches an append at a version another writer took, never one
-- past the stream's head. That happens after an asynchronous failover: a replica's cache holds a
-- stream longer than the new primary does, and an append at the cached version would leave a hole
-- and fold onto state the log no longer has. Refused here, it is a concurrency conflict: the writer
-- reloads and decides again. One probe of the (stream_id, version) index per event, inside the
-- append's own statement: no round trip.
CREATE FUNCTION events_refuse_gap() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- earlier rows of the same multi-row insert are visible here, so a batch of one stream passes
  IF NEW.version > 1 AND NOT EXISTS (SELECT 1 FROM events WHERE stream_id = NEW.stream_id AND version = NEW.version - 1) THEN
    RAISE EXCEPTION 'stream % has no version %: an append must follow its head', NEW.stream_id, NEW.version - 1
      USING ERRCODE = 'IL001', HINT = 'reload the stream and decide again';
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER events_contiguous BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION events_refuse_gap();
