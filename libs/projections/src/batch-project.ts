import { PoolAggregate } from '@ipledger/domain';
import type { PoolClient } from 'pg';
import { ALLOCATION_COLUMNS, ALLOCATION_ROW } from './allocation.projection';
import { forEachBatch } from './cursor-batches';
import { RANGE_RESERVED } from './pool.projection';
import { ReadModelFold, type FoldedEvent } from './read-model-fold';
import { READ_MODELS } from './read-models';
import { constrainShadowTables } from './shadow-tables';

const BATCH = 5000;
/** What the read models follow besides allocations and releases: few, found by the type index. */
const OTHER_TYPES = [
  'PoolCreated',
  'PoolUpdated',
  'PoolResized',
  'PoolDeleted',
  'RangeReserved',
  'RangeReleased',
  'BlockClaimed',
  'BlockReleased',
  'NodeLabelsSet',
  'NodeDeleted',
  'StatefulSetReconciled',
  'StatefulSetDeleted',
  'ClusterLabelsSet',
  'ClusterDeleted',
  'ClaimCreated',
  'ClaimPersisted',
  'ClaimReferenceAdded',
  'ClaimReferenceDropped',
  'ClaimDeleted',
];

/**
 * The allocations that still stand, as rows: IpAllocated events that no IpReleased of the same
 * cluster, handle and address undid later in the log. One hash anti-join (forced: on statistics gone stale
 * the planner picks a sort or a nested loop, several times slower) in parallel workers, which an
 * INSERT cannot use: hence CREATE TABLE AS. IpAllocated has one schema version: no upcast to apply
 * (an owner missing from older events is defaulted in ALLOCATION_ROW).
 */
const STANDING = `CREATE TEMP TABLE standing_allocations ON COMMIT DROP AS ${ALLOCATION_ROW}
    FROM events a
   WHERE a.type = 'IpAllocated'
     AND NOT EXISTS (SELECT 1 FROM events r
                      WHERE r.type = 'IpReleased' AND r.data ->> 'handle' = a.data ->> 'handle' AND r.data ->> 'ip' = a.data ->> 'ip'
                        AND coalesce(r.data ->> 'cluster', '') = coalesce(a.data ->> 'cluster', '')
                        AND (r.transaction_id, r.position) > (a.transaction_id, a.position))`;

/** The last event of each pool's stream: the pool row's version and updated_at, whichever event it was. */
const LAST_POOL_EVENTS = `SELECT p.name, l.version, l.recorded_at AS "recordedAt" FROM unnest($1::text[]) AS p(name)
  CROSS JOIN LATERAL (SELECT version, recorded_at FROM events WHERE stream_id = $2 || p.name ORDER BY version DESC LIMIT 1) l`;

/**
 * Fills the shadow tables (createShadowTables) with every read model rebuilt from the whole log
 * this transaction's snapshot sees, set-based: a few statements in all where projectEvents runs
 * several per event, and the same rows. Returns the number of events in the log.
 *
 * Most of a log is allocations and releases that cancel out: the database keeps the allocations
 * that stand (STANDING, rows derived by the inline path's own ALLOCATION_ROW) and counts them per
 * pool. The other events fold in log order into ReadModelFold (the inline path's row builders and
 * upcast). Leaving the pairs out changes nothing, by the pool aggregate's own rules: a pool releases
 * only what it holds, so its allocated count is its standing allocations, and is deleted only when
 * empty; every pool event is in the pool's stream, in version order, so the pool row's version and
 * updated_at are its stream's last event's. range_reserved is then derived by the inline path's SQL.
 */
export async function batchProject(
  client: PoolClient,
  onProgress: (replayed: number, total: number) => void = () => undefined,
): Promise<number> {
  const { rows: counts } = await client.query<{ total: string; other: string }>(
    'SELECT count(*) AS total, count(*) FILTER (WHERE type = ANY($1)) AS other FROM events',
    [OTHER_TYPES],
  );
  const total = Number(counts[0].total);
  // progress: the allocations and releases are all accounted for at once, the others as they fold
  let replayed = total - Number(counts[0].other);
  await client.query("SET LOCAL work_mem = '256MB'");
  await client.query('SET LOCAL enable_mergejoin = off');
  await client.query('SET LOCAL enable_nestloop = off');
  await client.query(STANDING);
  await client.query('RESET enable_mergejoin');
  await client.query('RESET enable_nestloop');
  await client.query(`INSERT INTO allocations (${ALLOCATION_COLUMNS}) SELECT * FROM standing_allocations`);
  onProgress(replayed, total);

  const fold = new ReadModelFold();
  // the whole result is wanted: plan for all of it (the type index and a sort), not the first rows
  await client.query('SET LOCAL cursor_tuple_fraction = 1');
  await forEachBatch<FoldedEvent>(
    client,
    `SELECT version, type, schema_version AS "schemaVersion", data, recorded_at AS "recordedAt"
       FROM events WHERE type = ANY('{${OTHER_TYPES.join(',')}}') ORDER BY transaction_id, position`,
    BATCH,
    (events) => {
      for (const event of events) fold.apply(event);
      onProgress((replayed += events.length), total);
    },
  );

  const { rows: standing } = await client.query<{ pool: string; count: string }>(
    'SELECT pool, count(*) FROM standing_allocations GROUP BY pool',
  );
  for (const { pool, count } of standing) {
    const row = fold.pools.get(pool);
    if (row) row.allocated = Number(count);
  }
  await client.query('DROP TABLE standing_allocations');
  const { rows: last } = await client.query<{ name: string; version: number; recordedAt: Date }>(LAST_POOL_EVENTS, [
    [...fold.pools.keys()],
    `${PoolAggregate.streamPrefix}-`,
  ]);
  for (const { name, version, recordedAt } of last) Object.assign(fold.pools.get(name)!, { version, updated_at: recordedAt });

  for (const { table } of READ_MODELS) if (table !== 'allocations') await insertRows(client, table, fold.rows(table));
  await constrainShadowTables(client);
  await client.query(`UPDATE pools p SET ${RANGE_RESERVED} WHERE name IN (SELECT pool FROM pool_ranges)`);
  return total;
}

/** json_populate_recordset with the table's own row type: the row objects' keys are its column names. */
async function insertRows(client: PoolClient, table: string, rows: Iterable<object>): Promise<void> {
  let batch: object[] = [];
  const flush = () =>
    client.query(`INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)`, [JSON.stringify(batch)]);
  for (const row of rows) {
    batch.push(row);
    if (batch.length === BATCH) {
      await flush();
      batch = [];
    }
  }
  if (batch.length > 0) await flush();
}
