import type { PoolClient } from 'pg';

/** The last migration the database has applied (migrations apply in name order). */
export async function readSchemaVersion(db: PoolClient): Promise<string> {
  const { rows } = await db.query<{ name: string }>('select max(name) as name from schema_migrations');
  return rows[0].name;
}
