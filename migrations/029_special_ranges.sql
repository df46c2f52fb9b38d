-- Special ranges and IPv4-mapped addresses (issue 32).
-- A pool may lie in or over a special range (loopback, multicast, ...) only when it says so.
-- Additive: the previous release neither reads nor writes the column, and its default is what
-- every pool it made had.
ALTER TABLE pools ADD COLUMN allow_special_ranges boolean NOT NULL DEFAULT false;

-- A network in one space for both families: IPv6 as it is, IPv4 as its IPv4-mapped IPv6 form
-- (::ffff:a.b.c.d). An IPv4 address and its mapped form are one address, so pools holding them
-- must collide in the exclusion constraint, as libs/domain/src/pool/pool-overlap.ts has them.
CREATE FUNCTION pool_address_space(network cidr) RETURNS inet
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN CASE WHEN family(network) = 4
    THEN set_masklen('::ffff:0.0.0.0'::inet + (network - '0.0.0.0'::inet), masklen(network) + 96)
    ELSE network END;

-- Pools made before this check could already share addresses across the mapping: say which,
-- rather than fail on the constraint with no names.
DO $$
DECLARE clash text;
BEGIN
  SELECT format('pool "%s" (%s) and pool "%s" (%s)', a.name, a.cidr, b.name, b.cidr) INTO clash
    FROM pools a JOIN pools b ON a.family = 6 AND b.family = 4
     AND pool_address_space(a.cidr) && pool_address_space(b.cidr)
   ORDER BY a.name, b.name LIMIT 1;
  IF clash IS NOT NULL THEN
    RAISE EXCEPTION 'migration 029: % hold the same addresses (an IPv4 address and its IPv4-mapped IPv6 form); delete or shrink one of them with the previous release, then migrate', clash;
  END IF;
END $$;

-- contract: the constraint is replaced in the same statement under the same name by a stricter one; the previous release reads nothing of it but its name and SQLSTATE 23P01, which stay
ALTER TABLE pools
  DROP CONSTRAINT pools_cidr_no_overlap,
  ADD CONSTRAINT pools_cidr_no_overlap EXCLUDE USING gist (pool_address_space(cidr) inet_ops WITH &&);
