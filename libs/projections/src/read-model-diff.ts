import type { PoolClient } from 'pg';
import type { ReadModel } from './read-models';

/**
 * Where a live read model (public) and its rebuilt shadow (pg_temp) disagree, matched by primary
 * key in one hash join: pg_temp.diff_<table> holds each such key's `live` and `rebuilt` rows
 * (whole rows, all NULL on the side that has none) until the transaction ends. Returns its name.
 */
export async function diffReadModel(client: PoolClient, { table, key }: ReadModel): Promise<string> {
  const diff = `pg_temp.diff_${table}`;
  await client.query(
    `CREATE TEMP TABLE diff_${table} ON COMMIT DROP AS
       SELECT l AS live, s AS rebuilt FROM public.${table} l FULL JOIN pg_temp.${table} s ON ${key.map((k) => `l.${k} = s.${k}`).join(' AND ')}
        WHERE l IS DISTINCT FROM s`,
  );
  return diff;
}
