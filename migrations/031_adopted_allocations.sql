-- Adopting a running cluster (issue 33): an address a running pod already used before ipledger
-- knew it. Additive: the previous release neither reads nor writes the column, and reads every
-- row it made as not adopted.
ALTER TABLE allocations ADD COLUMN adopted boolean;
