-- Least privilege for the API (issue 13). Migrations run as the owner of the schema; the API
-- connects as a login role that is a member of ipledger_service, which may read and write the
-- read models but only SELECT and INSERT the event log: it cannot UPDATE, DELETE or TRUNCATE
-- `events`, nor drop or disable the triggers that refuse those (only the owner can).
-- README "Database roles" shows the setup. Roles belong to the whole cluster, so the group role
-- is created once; two databases migrating at the same time may race to create it.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'ipledger_service') THEN
    CREATE ROLE ipledger_service NOLOGIN;
  END IF;
EXCEPTION
  WHEN duplicate_object OR unique_violation THEN NULL;
  WHEN insufficient_privilege THEN
    RAISE EXCEPTION 'role ipledger_service is missing and this owner may not create it: run CREATE ROLE ipledger_service NOLOGIN as a superuser first (README "Database roles")';
END
$$;

GRANT USAGE ON SCHEMA public TO ipledger_service;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ipledger_service;
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ipledger_service;
REVOKE UPDATE, DELETE, TRUNCATE ON events FROM ipledger_service, PUBLIC;

-- Tables and sequences later migrations create (as this owner) get the same grants; a migration
-- adding an append-only table revokes as above.
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ipledger_service;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO ipledger_service;
