-- `?at=` reads (issue 32): the probes a replay makes after its fold, exact by index whatever the
-- planner's statistics say. Additive: the previous release does not read them.
-- When each address a pool holds was allocated: the last allocation or release of that address in
-- that pool's stream, one backward index step. events_ip_history (by address alone) left the
-- planner a bitmap scan of every event of the address, then a sort: a second or more a read on a
-- pool of a million events before the table was analysed (as after an import).
CREATE INDEX events_held_since ON events (stream_id, (data ->> 'ip'), position) WHERE type IN ('IpAllocated', 'IpReleased');
-- When a pool was created, at or before a version: without it, the stream's whole range of versions
-- was intersected with every PoolCreated event.
CREATE INDEX events_pool_created ON events (stream_id, version) WHERE type = 'PoolCreated';
