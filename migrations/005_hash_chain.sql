-- Tamper evidence: every event carries a hash chained to the previous event of its stream, over
-- the previous hash, the type, the data and the metadata. The database computes it on insert, so
-- no writer can forget or forge it; `npm run cli -- verify-chain` recomputes every link.
ALTER TABLE events ADD COLUMN hash bytea;

CREATE FUNCTION events_link_hash(previous bytea, type text, data jsonb, metadata jsonb) RETURNS bytea
  LANGUAGE sql IMMUTABLE
  AS $$ SELECT sha256(coalesce(previous, ''::bytea) || convert_to(type || E'\n' || data::text || E'\n' || metadata::text, 'UTF8')) $$;

CREATE FUNCTION events_chain_hash() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  previous bytea;
BEGIN
  IF NEW.version > 1 THEN
    -- earlier rows of the same multi-row insert are visible here, so a batch chains too
    SELECT hash INTO previous FROM events WHERE stream_id = NEW.stream_id AND version = NEW.version - 1;
  END IF;
  NEW.hash := events_link_hash(previous, NEW.type, NEW.data, NEW.metadata);
  RETURN NEW;
END $$;

CREATE TRIGGER events_chain BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION events_chain_hash();

-- Events recorded before this migration get their links once, in stream order (the only UPDATE the
-- log ever sees, made with the append-only guard lifted inside this migration's transaction).
ALTER TABLE events DISABLE TRIGGER events_append_only;
DO $$
DECLARE
  e record;
  previous bytea;
  current_stream text;
BEGIN
  FOR e IN SELECT position, stream_id, type, data, metadata FROM events ORDER BY stream_id, version LOOP
    IF e.stream_id IS DISTINCT FROM current_stream THEN
      previous := NULL;
      current_stream := e.stream_id;
    END IF;
    previous := events_link_hash(previous, e.type, e.data, e.metadata);
    UPDATE events SET hash = previous WHERE position = e.position;
  END LOOP;
END $$;
ALTER TABLE events ENABLE TRIGGER events_append_only;
ALTER TABLE events ALTER COLUMN hash SET NOT NULL;
