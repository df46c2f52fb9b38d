import {
  decideAllocate,
  DEFAULT_CLUSTER,
  decideCreatePool,
  decideDeletePool,
  decideRelease,
  decideReleaseRange,
  decideReserveRange,
  decideResizeRange,
  decideUpdatePool,
  DomainError,
  NodeAggregate,
  parsePoolSpec,
  PoolAggregate,
  schemaVersionOf,
  StatefulSetAggregate,
  type DomainEvent,
  type PoolState,
  type Reservation,
} from '@ipledger/domain';
import type { ChainEvent } from '@ipledger/event-store';
import type { Pool } from 'pg';
import { seededRandom } from './seeded-random';

/** One event as the events table stores it, in the chain's text form (position, ids and time are the database's). */
export type LogRow = Pick<ChainEvent, 'streamId' | 'version' | 'type' | 'schemaVersion' | 'data' | 'metadata'>;

interface StatefulSetRun {
  namespace: string;
  name: string;
  pool: string;
  replicas: number;
  handles: string[];
}

/**
 * A busy cluster's history decided by the real aggregates in memory, so every event is one the
 * API could have written: pools (with labels, node selectors, reserved ranges, some updated,
 * deleted and created again), nodes labelled and relabelled, pod addresses allocated and released
 * (a few releases in schema version 1), and StatefulSets with ranges reserved, resized and deleted.
 */
export class SyntheticLog {
  private readonly rand = seededRandom(20240611);
  private readonly pools = new Map<string, { state: PoolState }>();
  private readonly poolNames: string[] = [];
  private readonly streamVersions = new Map<string, number>();
  private readonly live: Array<{ pool: string; handle: string }> = [];
  private readonly statefulSets: StatefulSetRun[] = [];
  private readonly nodeNames: string[] = [];
  private readonly deletedNodes = new Set<string>();
  private rows: LogRow[] = [];
  private count = 0;
  private serial = 0;

  constructor(private readonly poolCount: number) {}

  /** Appends events until `total` are written, `chunk` rows an INSERT, generating the next chunk while the last one is stored. */
  async write(db: Pool, total: number, chunk = 20_000): Promise<void> {
    this.setUp();
    let storing: Promise<void> = Promise.resolve();
    while (this.count < total) {
      while (this.rows.length < chunk && this.count < total) this.step();
      await storing;
      storing = insertRows(db, this.rows);
      this.rows = [];
    }
    await storing;
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.rand() * items.length)];
  }

  private emit(streamId: string, event: DomainEvent, schemaVersion = schemaVersionOf(event.type)): number {
    const version = (this.streamVersions.get(streamId) ?? 0) + 1;
    this.streamVersions.set(streamId, version);
    const request = `req-${this.serial++}`;
    this.rows.push({
      streamId,
      version,
      type: event.type,
      schemaVersion,
      data: JSON.stringify(event.data),
      metadata: JSON.stringify({ actor: 'bench', source: 'rest', correlationId: request, causationId: request }),
    });
    this.count++;
    return version;
  }

  private poolEvent(name: string, event: DomainEvent | null, schemaVersion?: number): void {
    if (!event) return;
    const pool = this.pools.get(name)!;
    const version = this.emit(`${PoolAggregate.streamPrefix}-${name}`, event, schemaVersion);
    pool.state = PoolAggregate.evolve(pool.state, { ...event, version });
  }

  private createPool(index: number): void {
    const name = `pool-${index}`;
    const v6 = index % 100 === 99;
    const cidr = v6 ? `fd00:${index.toString(16)}::/120` : `10.${index >> 8}.${index & 255}.0/24`;
    const base = v6 ? `fd00:${index.toString(16)}::` : `10.${index >> 8}.${index & 255}.`;
    const spec = parsePoolSpec({
      name,
      cidr,
      labels: { 'pool-group': `g${index % 100}`, zone: `z${index % 3}` },
      nodeSelector: index % 10 === 0 ? `zone=z${index % 3}` : null,
      reserved: index % 7 === 0 ? [`${base}1-${base}4`] : [],
    });
    if (!this.pools.has(name)) {
      this.poolNames.push(name);
      this.pools.set(name, { state: PoolAggregate.initialState() });
    }
    this.poolEvent(name, decideCreatePool(this.pools.get(name)!.state, spec));
  }

  private setNode(name: string, generation: number): void {
    const labels = { 'pool-group': `g${(name.length + generation) % 100}`, zone: `z${generation % 3}`, rack: `r${generation}` };
    this.emit(`${NodeAggregate.streamPrefix}-${name}`, { type: 'NodeLabelsSet', data: { name, labels } });
  }

  private setUp(): void {
    for (let i = 0; i < this.poolCount; i++) this.createPool(i);
    for (let i = 0; i < this.poolCount; i++) {
      this.nodeNames.push(`node-${i}`);
      this.setNode(`node-${i}`, i);
    }
  }

  private step(): void {
    const roll = this.rand();
    if (roll < 0.575) this.allocate();
    else if (roll < 0.99) this.release();
    else if (roll < 0.993) this.updatePool();
    else if (roll < 0.9945) this.setNode(this.pick(this.nodeNames), this.serial);
    else if (roll < 0.995) this.deleteNode();
    else if (roll < 0.997) this.reserveStatefulSet();
    else if (roll < 0.998) this.resizeStatefulSet();
    else if (roll < 0.9996) this.deleteStatefulSet();
    else this.recyclePool();
  }

  /** A node goes away; its name comes back later with new labels. */
  private deleteNode(): void {
    const name = this.pick(this.nodeNames);
    if (this.deletedNodes.has(name)) {
      this.deletedNodes.delete(name);
      return this.setNode(name, this.serial);
    }
    this.deletedNodes.add(name);
    this.emit(`${NodeAggregate.streamPrefix}-${name}`, { type: 'NodeDeleted', data: { name } });
  }

  private allocate(): void {
    // a pod goes to the first of a few random pools that takes it
    let name = this.pick(this.poolNames);
    for (let tries = 1; tries < 4 && (!this.pools.get(name)!.state.exists || this.pools.get(name)!.state.disabled); tries++) {
      name = this.pick(this.poolNames);
    }
    const pool = this.pools.get(name)!;
    if (!pool.state.exists || pool.state.disabled) return;
    const n = this.serial;
    try {
      const { event } = decideAllocate(pool.state, {
        handle: `h-${n}`,
        node: this.pick(this.nodeNames),
        namespace: `ns-${n % 40}`,
        pod: `app-${n}`,
        podUid: n % 5 === 0 ? null : `uid-${n}`,
      });
      this.poolEvent(name, event);
      this.live.push({ pool: name, handle: `h-${n}` });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err; // a full pool: the pod goes elsewhere
    }
  }

  private release(): void {
    if (this.live.length === 0) return this.allocate();
    const index = Math.floor(this.rand() * this.live.length);
    const { pool, handle } = this.live[index];
    this.live[index] = this.live[this.live.length - 1];
    this.live.pop();
    const released = decideRelease(this.pools.get(pool)!.state, handle);
    if (released && this.rand() < 0.02) {
      // what an older ipledger wrote: no holder recorded
      const { pool: p, ip, handle: h } = released.data;
      this.poolEvent(pool, { type: 'IpReleased', data: { pool: p, ip, handle: h } } as DomainEvent, 1);
    } else this.poolEvent(pool, released);
  }

  private updatePool(): void {
    const name = this.pick(this.poolNames);
    const { state } = this.pools.get(name)!;
    if (!state.exists) return;
    const roll = this.rand();
    const patch =
      roll < 0.4
        ? { labels: { ...state.labels, tier: `t${this.serial % 5}` } }
        : roll < 0.7
          ? { disabled: !state.disabled && this.rand() < 0.3 }
          : { nodeSelector: state.nodeSelector ? null : `zone=z${this.serial % 3}` };
    this.poolEvent(name, decideUpdatePool(state, name, patch));
  }

  private reconciled(run: Omit<StatefulSetRun, 'handles'>, range: Reservation['range']): void {
    const data: Reservation = {
      namespace: run.namespace,
      name: run.name,
      replicas: run.replicas,
      ordinalsStart: 0,
      pool: range ? run.pool : null,
      mode: range ? 'continuous' : 'dynamic',
      range,
      reason: range ? null : `no eligible pool has ${run.replicas} continuous free addresses`,
    };
    this.emit(`${StatefulSetAggregate.streamPrefix}-${run.namespace}/${run.name}`, { type: 'StatefulSetReconciled', data });
  }

  private reserveStatefulSet(): void {
    const pool = this.pick(this.poolNames);
    const { state } = this.pools.get(pool)!;
    if (!state.exists || state.disabled) return;
    const run: StatefulSetRun = {
      namespace: `ns-${this.serial % 40}`,
      name: `db-${this.serial}`,
      pool,
      replicas: 3 + (this.serial % 4),
      handles: [],
    };
    const reserved = decideReserveRange(state, DEFAULT_CLUSTER, run.namespace, run.name, BigInt(run.replicas));
    if (!reserved) return this.reconciled(run, null);
    this.poolEvent(pool, reserved);
    this.reconciled(run, { start: reserved.data.start, end: reserved.data.end });
    const start = this.pools.get(pool)!.state.ranges.get(`${run.namespace}/${run.name}`)!.start;
    for (let ordinal = 0; ordinal < run.replicas; ordinal++) {
      const handle = `sts-${this.serial}-${ordinal}`;
      const { event } = decideAllocate(this.pools.get(pool)!.state, {
        handle,
        node: this.pick(this.nodeNames),
        namespace: run.namespace,
        pod: `${run.name}-${ordinal}`,
        podUid: `uid-${handle}`,
        statefulSet: { namespace: run.namespace, name: run.name, ordinal },
        ip: start + BigInt(ordinal),
      });
      this.poolEvent(pool, event);
      run.handles.push(handle);
    }
    this.statefulSets.push(run);
  }

  private resizeStatefulSet(): void {
    if (this.statefulSets.length === 0) return;
    const run = this.pick(this.statefulSets);
    const { state } = this.pools.get(run.pool)!;
    const resized = decideResizeRange(state, DEFAULT_CLUSTER, run.namespace, run.name, BigInt(run.replicas + 2));
    if (!resized) return;
    run.replicas += 2;
    this.poolEvent(run.pool, resized);
    this.reconciled(run, { start: resized.data.start, end: resized.data.end });
  }

  private deleteStatefulSet(): void {
    if (this.statefulSets.length === 0) return;
    const index = Math.floor(this.rand() * this.statefulSets.length);
    const run = this.statefulSets[index];
    this.statefulSets.splice(index, 1);
    for (const handle of run.handles) this.poolEvent(run.pool, decideRelease(this.pools.get(run.pool)!.state, handle));
    this.poolEvent(run.pool, decideReleaseRange(this.pools.get(run.pool)!.state, DEFAULT_CLUSTER, run.namespace, run.name));
    this.emit(`${StatefulSetAggregate.streamPrefix}-${run.namespace}/${run.name}`, {
      type: 'StatefulSetDeleted',
      data: { namespace: run.namespace, name: run.name },
    });
  }

  /** Empties a pool of its pods (not its StatefulSets), deletes it and, every other time, creates it again. */
  private recyclePool(): void {
    const name = this.pick(this.poolNames);
    const { state } = this.pools.get(name)!;
    if (!state.exists || state.ranges.size > 0) return;
    for (let i = this.live.length - 1; i >= 0; i--) {
      if (this.live[i].pool !== name) continue;
      this.poolEvent(name, decideRelease(this.pools.get(name)!.state, this.live[i].handle));
      this.live[i] = this.live[this.live.length - 1];
      this.live.pop();
    }
    this.poolEvent(name, decideDeletePool(this.pools.get(name)!.state, name));
    if (this.serial % 2 === 0) this.createPool(Number(name.slice('pool-'.length)));
  }
}

/** One INSERT a chunk, in generation order: positions follow the array (WITH ORDINALITY), and the hash-chain trigger links each row. */
export async function insertRows(db: Pool, rows: LogRow[]): Promise<void> {
  await db.query(
    `INSERT INTO events (stream_id, version, event_id, type, schema_version, data, metadata)
     SELECT s, v, gen_random_uuid(), t, sv, d, m
       FROM unnest($1::text[], $2::int[], $3::text[], $4::int[], $5::jsonb[], $6::jsonb[]) WITH ORDINALITY AS r(s, v, t, sv, d, m, n)
      ORDER BY n`,
    [
      rows.map((r) => r.streamId),
      rows.map((r) => r.version),
      rows.map((r) => r.type),
      rows.map((r) => r.schemaVersion),
      rows.map((r) => r.data),
      rows.map((r) => r.metadata),
    ],
  );
}
