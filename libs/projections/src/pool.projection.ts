import { prepared } from '@ipledger/event-store';
import {
  clusterOf,
  namespaceKey,
  PoolAggregate,
  poolCounts,
  unknownEvent,
  type BlockClaimed,
  type DomainEvent,
  type Labels,
  type PoolCreated,
  type RangeReserved,
} from '@ipledger/domain';
import type { RecordedEvent } from '@ipledger/event-store';
import type { Queryable } from './queryable';
import { insertRowsSql, insertSql, rowParams } from './row-sql';

export interface PoolRow {
  name: string;
  cidr: string;
  family: number;
  gateway: string | null;
  labels: Labels;
  node_selector: string | null;
  cluster_selector: string | null;
  reserved: string[];
  disabled: boolean;
  capacity: string;
  allocated: number;
  reserved_count: string;
  range_reserved: number;
  reuse_delay_seconds: number;
  allow_special_ranges: boolean;
  version: number;
  created_at: Date;
  updated_at: Date;
  block_size: number | null;
  block_affinity: string | null;
  block_release_seconds: number | null;
  network: string | null;
}

const COLUMNS: readonly (keyof PoolRow)[] = [
  'name',
  'cidr',
  'family',
  'gateway',
  'labels',
  'node_selector',
  'cluster_selector',
  'reserved',
  'disabled',
  'capacity',
  'allocated',
  'reserved_count',
  'range_reserved',
  'reuse_delay_seconds',
  'allow_special_ranges',
  'version',
  'created_at',
  'updated_at',
  'block_size',
  'block_affinity',
  'block_release_seconds',
  'network',
];
const INSERT_ROWS = insertRowsSql('pools', COLUMNS);

export interface PoolBlockRow {
  pool: string;
  cidr: string;
  node: string;
  /** the node's cluster */
  cluster: string;
  claimed_at: Date;
}

const BLOCK_COLUMNS: readonly (keyof PoolBlockRow)[] = ['pool', 'cidr', 'node', 'cluster', 'claimed_at'];
const INSERT_BLOCK = insertSql('pool_blocks', BLOCK_COLUMNS);

/** The pool_blocks row a BlockClaimed inserts (inline and in a batch rebuild alike). */
export function poolBlockRow(event: Pick<RecordedEvent, 'data' | 'recordedAt'>): PoolBlockRow {
  const d = event.data as BlockClaimed['data'];
  return { pool: d.pool, cidr: d.cidr, node: d.node, cluster: clusterOf(d), claimed_at: event.recordedAt };
}

export interface PoolRangeRow {
  pool: string;
  cluster: string;
  /** namespaceKey: the key the previous release's upserts (ON CONFLICT (pool, namespace, name)) still find */
  namespace: string;
  name: string;
  first_ip: string;
  last_ip: string;
}

const RANGE_COLUMNS: readonly (keyof PoolRangeRow)[] = ['pool', 'cluster', 'namespace', 'name', 'first_ip', 'last_ip'];
const UPSERT_RANGE = insertSql('pool_ranges', RANGE_COLUMNS, ['pool', 'namespace', 'name']);

/** The pool_ranges row a RangeReserved leaves (inline and in a batch rebuild alike). */
export function poolRangeRow(event: Pick<RecordedEvent, 'data'>): PoolRangeRow {
  const d = event.data as RangeReserved['data'];
  return {
    pool: d.pool,
    cluster: clusterOf(d),
    namespace: namespaceKey(clusterOf(d), d.namespace),
    name: d.name,
    first_ip: d.start,
    last_ip: d.end,
  };
}

/** Capacity and reserved count of a pool's definition: from the aggregate's own rules, so the read model cannot disagree with it. */
function definedCounts(d: PoolCreated['data']): { capacity: string; reserved_count: string } {
  const counts = poolCounts(PoolAggregate.evolve(PoolAggregate.initialState(), { type: 'PoolCreated', data: d, version: 1 }));
  return { capacity: counts.capacity.toString(), reserved_count: counts.reservedCount.toString() };
}

/** The columns a PoolResized changes in a pools row as it stands (inline and in a batch rebuild alike). */
export function poolResizedColumns(
  row: Pick<PoolRow, 'name' | 'family' | 'gateway' | 'reserved'>,
  cidr: string,
): { cidr: string; capacity: string; reserved_count: string } {
  const data = { ...row, cidr, family: row.family as 4 | 6, labels: {}, nodeSelector: null, disabled: false };
  return { cidr, ...definedCounts(data) };
}

/** The pools row a PoolCreated inserts (inline and in a batch rebuild alike). */
export function poolCreatedRow(event: Pick<RecordedEvent, 'data' | 'version' | 'recordedAt'>): PoolRow {
  const d = event.data as PoolCreated['data'];
  const counts = definedCounts(d);
  return {
    name: d.name,
    cidr: d.cidr,
    family: d.family,
    gateway: d.gateway ?? null,
    labels: d.labels,
    node_selector: d.nodeSelector,
    cluster_selector: d.clusterSelector ?? null,
    reserved: d.reserved,
    disabled: d.disabled,
    capacity: counts.capacity,
    allocated: 0,
    reserved_count: counts.reserved_count,
    range_reserved: 0,
    reuse_delay_seconds: d.reuseDelaySeconds ?? 0,
    allow_special_ranges: d.allowSpecialRanges ?? false,
    version: event.version,
    created_at: event.recordedAt,
    updated_at: event.recordedAt,
    block_size: d.blockSize ?? null,
    block_affinity: d.blockAffinity ?? null,
    block_release_seconds: d.blockReleaseSeconds ?? null,
    network: d.network ?? null,
  };
}

const LABEL_ROWS = insertRowsSql('pool_labels', ['key', 'value', 'pool']);

/** pool_labels rows of any number of pools, in one statement. */
async function insertLabels(db: Queryable, pools: ReadonlyArray<{ name: string; labels: Labels }>): Promise<void> {
  const rows = pools.flatMap(({ name, labels }) => Object.entries(labels).map(([key, value]) => ({ key, value, pool: name })));
  if (rows.length > 0) await db.query(prepared(LABEL_ROWS, [JSON.stringify(rows)]));
}

/** A run of PoolCreated (a batch of IPPool messages, or one REST request's pools) in two statements. */
export async function projectPoolsCreated(db: Queryable, events: readonly RecordedEvent[]): Promise<void> {
  await db.query(prepared(INSERT_ROWS, [JSON.stringify(events.map(poolCreatedRow))]));
  await insertLabels(
    db,
    events.map((event) => event.data as PoolCreated['data']),
  );
}

/** The addresses of the pool's StatefulSet ranges that no pod holds: derived, never counted by hand. */
export const RANGE_RESERVED = `range_reserved = (
  SELECT coalesce(sum((r.last_ip - r.first_ip) + 1 - (SELECT count(*) FROM allocations a WHERE a.pool = r.pool AND a.ip BETWEEN r.first_ip AND r.last_ip)), 0)
  FROM pool_ranges r WHERE r.pool = p.name)`;

async function rangesChanged(db: Queryable, pool: string, event: RecordedEvent): Promise<void> {
  await db.query(
    prepared(`UPDATE pools p SET version = $2, updated_at = $3, ${RANGE_RESERVED} WHERE name = $1`, [
      pool,
      event.version,
      event.recordedAt,
    ]),
  );
}

/**
 * The pools' counts after a run of allocations and releases (a group commit's, over any number of
 * pools): one update, made after the allocations rows changed (projectEvents' order), so the range
 * count sees them.
 */
export async function projectPoolAllocations(db: Queryable, events: readonly RecordedEvent[]): Promise<void> {
  const pools = new Map<string, { delta: number; version: number; at: Date }>();
  for (const e of events) {
    const pool = (e.data as { pool: string }).pool;
    const delta = (pools.get(pool)?.delta ?? 0) + (e.type === 'IpAllocated' ? 1 : -1);
    pools.set(pool, { delta, version: e.version, at: e.recordedAt });
  }
  const rows = [...pools.values()];
  await db.query(
    prepared(
      `UPDATE pools p SET allocated = allocated + d.delta, version = d.version, updated_at = d.at, ${RANGE_RESERVED}
       FROM unnest($1::text[], $2::int[], $3::int[], $4::timestamptz[]) d (name, delta, version, at) WHERE p.name = d.name`,
      [[...pools.keys()], rows.map((r) => r.delta), rows.map((r) => r.version), rows.map((r) => r.at)],
    ),
  );
}

/**
 * The same as projectPoolAllocations, for a run of one type, as a data-modifying CTE over the rows
 * the append inserts (`appended`). Sub-statements of one statement do not see each other's rows,
 * so the range count moves by the addresses of the run that fall in the pool's ranges instead of
 * being recounted: an address is held once, and the ranges of a pool do not overlap. The pools are
 * also matched by `= ANY (ARRAY(...))`: the statement's one generic plan is priced for 100 rows of
 * `appended`, for which a hash join over every pool looks cheaper than 100 key lookups, and one
 * append of a batch of one then scanned 10,000 pools.
 */
export function poolAllocationsCte(type: 'IpAllocated' | 'IpReleased'): string {
  const sign = type === 'IpAllocated' ? '' : '-';
  return `projected_pools AS (UPDATE pools p SET allocated = allocated + d.delta, version = d.version, updated_at = d.at,
      range_reserved = range_reserved - d.in_ranges
    FROM (SELECT e.data ->> 'pool' AS name, ${sign}count(*) AS delta, max(e.version) AS version, date_trunc('milliseconds', max(e.recorded_at)) AS at,
            ${sign}count(*) FILTER (WHERE EXISTS (SELECT 1 FROM pool_ranges r
              WHERE r.pool = e.data ->> 'pool' AND (e.data ->> 'ip')::inet BETWEEN r.first_ip AND r.last_ip)) AS in_ranges
          FROM appended e GROUP BY 1) d
    WHERE p.name = d.name AND p.name = ANY (ARRAY(SELECT DISTINCT e.data ->> 'pool' FROM appended e)))`;
}

/** pools: one row a live pool with its counts; pool_labels: one row a label, for indexed selection; pool_ranges: StatefulSet ranges. */
export async function projectPoolEvent(db: Queryable, event: RecordedEvent): Promise<void> {
  const e = { type: event.type, data: event.data } as DomainEvent;
  const at = event.recordedAt;
  switch (e.type) {
    case 'PoolUpdated': {
      const d = e.data;
      await db.query(
        prepared(
          `UPDATE pools SET labels = coalesce($2, labels),
                          node_selector = CASE WHEN $3 THEN $4 ELSE node_selector END,
                          disabled = coalesce($5, disabled), version = $6, updated_at = $7,
                          reuse_delay_seconds = coalesce($8, reuse_delay_seconds),
                          allow_special_ranges = coalesce($9, allow_special_ranges),
                          cluster_selector = CASE WHEN $10 THEN $11 ELSE cluster_selector END
          WHERE name = $1`,
          [
            d.name,
            d.labels ?? null,
            d.nodeSelector !== undefined,
            d.nodeSelector ?? null,
            d.disabled ?? null,
            event.version,
            at,
            d.reuseDelaySeconds ?? null,
            d.allowSpecialRanges ?? null,
            d.clusterSelector !== undefined,
            d.clusterSelector ?? null,
          ],
        ),
      );
      if (d.labels !== undefined) {
        await db.query(prepared('DELETE FROM pool_labels WHERE pool = $1', [d.name]));
        await insertLabels(db, [{ name: d.name, labels: d.labels }]);
      }
      return;
    }
    case 'PoolResized': {
      // a grow into another pool's space fails here, on the exclusion constraint, as a create does
      const { rows } = await db.query<PoolRow>(
        prepared('SELECT name, family, host(gateway) AS gateway, reserved FROM pools WHERE name = $1', [e.data.name]),
      );
      if (!rows[0]) return;
      const changed = poolResizedColumns(rows[0], e.data.cidr);
      await db.query(
        prepared('UPDATE pools SET cidr = $2, capacity = $3, reserved_count = $4, version = $5, updated_at = $6 WHERE name = $1', [
          e.data.name,
          changed.cidr,
          changed.capacity,
          changed.reserved_count,
          event.version,
          at,
        ]),
      );
      return;
    }
    case 'PoolDeleted':
      await db.query(prepared('DELETE FROM pools WHERE name = $1', [e.data.name]));
      return;
    case 'RangeReserved':
      await db.query(prepared(UPSERT_RANGE, rowParams(poolRangeRow(event), RANGE_COLUMNS)));
      await rangesChanged(db, e.data.pool, event);
      return;
    case 'RangeReleased':
      await db.query(
        prepared('DELETE FROM pool_ranges WHERE pool = $1 AND namespace = $2 AND name = $3', [
          e.data.pool,
          namespaceKey(clusterOf(e.data), e.data.namespace),
          e.data.name,
        ]),
      );
      await rangesChanged(db, e.data.pool, event);
      return;
    case 'BlockClaimed':
      await db.query(prepared(INSERT_BLOCK, rowParams(poolBlockRow(event), BLOCK_COLUMNS)));
      await touchPool(db, e.data.pool, event);
      return;
    case 'BlockReleased':
      await db.query(prepared('DELETE FROM pool_blocks WHERE pool = $1 AND cidr = $2', [e.data.pool, e.data.cidr]));
      await touchPool(db, e.data.pool, event);
      return;
    // projected in runs (projectEvents): IpAllocated and IpReleased by projectPoolAllocations, PoolCreated by projectPoolsCreated
    case 'IpAllocated':
    case 'IpReleased':
    case 'PoolCreated':
    case 'NodeLabelsSet':
    case 'NodeDeleted':
    case 'StatefulSetReconciled':
    case 'StatefulSetDeleted':
    case 'IpSetReserved':
    case 'IpSetWorkloadDeleted':
    case 'ClusterLabelsSet':
    case 'ClusterDeleted':
    case 'ClaimCreated':
    case 'ClaimPersisted':
    case 'ClaimReferenceAdded':
    case 'ClaimReferenceDropped':
    case 'ClaimDeleted':
      // other read models'; a workload's own stream only guards its set (the pool's RangeReserved is its row)
      return;
    default:
      return unknownEvent(e);
  }
}

async function touchPool(db: Queryable, pool: string, event: RecordedEvent): Promise<void> {
  await db.query(prepared('UPDATE pools SET version = $2, updated_at = $3 WHERE name = $1', [pool, event.version, event.recordedAt]));
}
