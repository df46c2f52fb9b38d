-- CNI: a pool's gateway (never handed out, named in every allocation from the pool) and the CNI
-- network an allocation was made through (CNI GC releases a node's attachments of one network).
ALTER TABLE pools ADD COLUMN gateway inet;
ALTER TABLE allocations ADD COLUMN network text;
-- GET /v1/allocations?node=&network= (CNI GC); also serves node= alone
CREATE INDEX allocations_node_network ON allocations (node, network);
DROP INDEX allocations_node;
