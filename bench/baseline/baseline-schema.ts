/**
 * The baseline's tables: one row per address, a partial index on the free ones (the allocation's
 * only scan), a unique index on the held handles (idempotency: a retried handle is found, a racing
 * one fails on it), and an append-only audit log.
 */
export const BASELINE_SCHEMA = `
  CREATE TABLE baseline_pools (name text PRIMARY KEY, cidr cidr NOT NULL);
  CREATE TABLE addresses (
    ip inet PRIMARY KEY,
    pool text NOT NULL REFERENCES baseline_pools (name),
    handle text,
    node text,
    namespace text,
    pod text,
    allocated_at timestamptz
  );
  CREATE INDEX addresses_free ON addresses (pool, ip) WHERE handle IS NULL;
  CREATE UNIQUE INDEX addresses_handle ON addresses (handle) WHERE handle IS NOT NULL;
  CREATE TABLE audit_log (
    id bigserial PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT now(),
    action text NOT NULL,
    handle text NOT NULL,
    ip inet NOT NULL,
    pool text NOT NULL,
    node text NOT NULL,
    namespace text NOT NULL,
    pod text NOT NULL
  );
`;

/** A pool and every usable address of it (network and broadcast addresses left out); $1 name, $2 IPv4 CIDR. */
export const BASELINE_ADD_POOL = `
  WITH p AS (INSERT INTO baseline_pools (name, cidr) VALUES ($1, $2::cidr) RETURNING name, cidr)
  INSERT INTO addresses (ip, pool)
  SELECT host(network(p.cidr) + g)::inet, p.name FROM p, generate_series(1, (2 ^ (32 - masklen(p.cidr)))::bigint - 2) g
`;

/**
 * One allocation, one statement: the handle's address when it already holds one; otherwise the
 * lowest free address of the pool, taken and logged. $1 handle, $2 pool, $3 node, $4 namespace,
 * $5 pod. No row: the pool is full.
 */
export const BASELINE_ALLOCATE = `
  WITH held AS (
    SELECT ip, pool, node, namespace, pod, allocated_at FROM addresses WHERE handle = $1
  ), taken AS (
    UPDATE addresses SET handle = $1, node = $3, namespace = $4, pod = $5, allocated_at = now()
    WHERE ip = (
      SELECT ip FROM addresses
      WHERE pool = $2 AND handle IS NULL AND NOT EXISTS (SELECT FROM held)
      ORDER BY ip LIMIT 1 FOR UPDATE SKIP LOCKED
    )
    RETURNING ip, pool, node, namespace, pod, allocated_at
  ), logged AS (
    INSERT INTO audit_log (action, handle, ip, pool, node, namespace, pod)
    SELECT 'allocate', $1, ip, pool, node, namespace, pod FROM taken
  )
  SELECT host(a.ip) AS ip, a.pool, p.cidr::text AS cidr, a.node, a.namespace, a.pod, a.allocated_at, a.created
  FROM (SELECT *, true AS created FROM taken UNION ALL SELECT *, false FROM held) a
  JOIN baseline_pools p ON p.name = a.pool
`;
