-- Seconds a released address is kept from new holders (issue 24). Additive: the previous release
-- neither reads nor writes it, and its default is the old behaviour.
ALTER TABLE pools ADD COLUMN reuse_delay_seconds integer NOT NULL DEFAULT 0;
