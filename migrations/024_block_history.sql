-- GET /v1/nodes/{name}/blocks?at= (issue 24): the pools where a node claimed a block, found in the
-- log without reading all of it. Additive: the previous release does not read it.
CREATE INDEX events_block_claims ON events ((data ->> 'node')) WHERE type = 'BlockClaimed';
