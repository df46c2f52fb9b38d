-- "Who held 10.4.0.17 when": allocations and releases of one address, found by index, not by a scan of the log.
CREATE INDEX events_ip_history ON events ((data ->> 'ip'), position) WHERE type IN ('IpAllocated', 'IpReleased');
