-- Isolated networks: address spaces that may overlap (VRFs, OVN-Kubernetes user-defined networks,
-- tenant overlays). A pool's network (null: the shared space) is the space its addresses are
-- unique in. Additive columns: the previous release neither reads nor writes them, and reads every
-- row it made as the shared space, as it always was.
ALTER TABLE pools ADD COLUMN network text;
-- the pool of an allocation's network: the space its address is unique in (IpAllocated.poolNetwork)
ALTER TABLE allocations ADD COLUMN pool_network text;

-- A network as a GiST key for the exclusion constraint: a one-value text range, compared with `=`
-- by the range type's own GiST operator class, so no extension is needed (btree_gist ships with
-- PostgreSQL's contrib, but a managed or embedded server may lack it, and creating it needs rights
-- the service's role should not have). Collation "C": two names are one network when their bytes are.
CREATE TYPE pool_network_key AS RANGE (subtype = text, collation = "C");
-- Network names are never empty (1 to 253 characters), so '' stands for the shared space.
CREATE FUNCTION pool_network_space(network text) RETURNS pool_network_key
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN pool_network_key(coalesce(network, ''), coalesce(network, ''), '[]');

-- contract: the constraint is replaced in the same statement under the same name by one that allows strictly more (overlap across networks only, and every existing pool is in the shared space); the previous release reads nothing of it but its name and SQLSTATE 23P01, which stay
ALTER TABLE pools
  DROP CONSTRAINT pools_cidr_no_overlap,
  ADD CONSTRAINT pools_cidr_no_overlap EXCLUDE USING gist (pool_address_space(cidr) inet_ops WITH &&, pool_network_space(network) WITH =);

-- contract: one address, one holder, now within each network: the same name, one index serving lookups by address (ip first), NULLS NOT DISTINCT so the shared space (null) stays unique as before; the previous release reads nothing of it but its name and SQLSTATE 23505, which stay
ALTER TABLE allocations
  DROP CONSTRAINT allocations_ip_unique,
  ADD CONSTRAINT allocations_ip_unique UNIQUE NULLS NOT DISTINCT (ip, pool_network);

-- An allocation naming a network allocates in that network's pools when some pool has it: found by index.
CREATE INDEX pools_network ON pools (network) WHERE network IS NOT NULL;
