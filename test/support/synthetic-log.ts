import {
  ClaimAggregate,
  claimHolding,
  ClusterAggregate,
  decideAddReference,
  decideAllocate,
  DEFAULT_CLUSTER,
  decideCreatePool,
  decideDeleteClaim,
  decideDeleteCluster,
  decideDeletePool,
  decideDropReference,
  decidePutClaim,
  decideRelease,
  decideReleaseRange,
  decideReserveRange,
  decideResizeRange,
  decideSetClusterLabels,
  decideUpdatePool,
  DomainError,
  inCluster,
  NodeAggregate,
  nodeStreamId,
  parsePoolSpec,
  PoolAggregate,
  schemaVersionOf,
  StatefulSetAggregate,
  type ClaimState,
  type ClusterState,
  type DomainEvent,
  type PoolState,
  type Reservation,
} from '@ipledger/domain';
import type { ChainEvent } from '@ipledger/event-store';
import type { Pool } from 'pg';
import { seededRandom } from './seeded-random';

/** One event as the events table stores it, in the chain's text form (position, ids and time are the database's). */
export type LogRow = Pick<ChainEvent, 'streamId' | 'version' | 'type' | 'schemaVersion' | 'data' | 'metadata'>;

/** A pod's address: its handle names it within its cluster. */
interface Held {
  pool: string;
  handle: string;
  cluster: string;
}

/** A claim (a VM's identity) with the pool its address is in and its live references' handles. */
interface ClaimRun {
  name: string;
  state: ClaimState;
  pool: string;
  ip: string;
}

/** The clusters beside the default one; the pods of a quarter of the allocations run in them, on nodes named as the default cluster's. */
const MEMBER_CLUSTERS = ['east', 'west'];

interface StatefulSetRun {
  namespace: string;
  name: string;
  pool: string;
  replicas: number;
  handles: string[];
}

/**
 * A busy fleet's history decided by the real aggregates in memory, so every event is one the
 * API could have written: pools (with labels, node selectors, reserved ranges, some updated,
 * deleted and created again; a few in an isolated network, over the same CIDRs as shared ones),
 * nodes labelled and relabelled, pod addresses allocated and released (a few releases in schema
 * version 1), StatefulSets with ranges reserved, resized and deleted, clusters (nodes and handles
 * of the same names in several, a cluster made and deleted), and claims (transient and persistent,
 * a second reference taken in another cluster as a migration does, references dropped, claims
 * deleted).
 */
export class SyntheticLog {
  private readonly rand = seededRandom(20240611);
  private readonly pools = new Map<string, { state: PoolState }>();
  private readonly poolNames: string[] = [];
  private readonly streamVersions = new Map<string, number>();
  private readonly live: Held[] = [];
  private readonly claims: ClaimRun[] = [];
  private readonly clusters = new Map<string, ClusterState>();
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

  /** Pools past `poolCount` are in the isolated network `tenant-a`, each over the CIDR of a shared pool. */
  private createPool(index: number): void {
    const name = `pool-${index}`;
    const space = index % this.poolCount;
    const v6 = space % 100 === 99;
    const cidr = v6 ? `fd00:${space.toString(16)}::/120` : `10.${space >> 8}.${space & 255}.0/24`;
    const base = v6 ? `fd00:${space.toString(16)}::` : `10.${space >> 8}.${space & 255}.`;
    const spec = parsePoolSpec({
      name,
      cidr,
      labels: { 'pool-group': `g${index % 100}`, zone: `z${index % 3}` },
      nodeSelector: index % 10 === 0 ? `zone=z${index % 3}` : null,
      reserved: index % 7 === 0 ? [`${base}1-${base}4`] : [],
      network: index >= this.poolCount ? 'tenant-a' : null,
    });
    if (!this.pools.has(name)) {
      this.poolNames.push(name);
      this.pools.set(name, { state: PoolAggregate.initialState() });
    }
    this.poolEvent(name, decideCreatePool(this.pools.get(name)!.state, spec));
  }

  private setNode(name: string, generation: number, cluster = DEFAULT_CLUSTER): void {
    const labels = { 'pool-group': `g${(name.length + generation) % 100}`, zone: `z${generation % 3}`, rack: `r${generation}` };
    this.emit(`${NodeAggregate.streamPrefix}-${nodeStreamId(cluster, name)}`, {
      type: 'NodeLabelsSet',
      data: { name, ...inCluster(cluster), labels },
    });
  }

  private clusterEvent(name: string, event: DomainEvent | null): void {
    if (!event) return;
    const version = this.emit(`${ClusterAggregate.streamPrefix}-${name}`, event);
    this.clusters.set(name, ClusterAggregate.evolve(this.clusters.get(name) ?? ClusterAggregate.initialState(), { ...event, version }));
  }

  private setUp(): void {
    for (let i = 0; i < this.poolCount + Math.ceil(this.poolCount / 6); i++) this.createPool(i);
    for (const cluster of MEMBER_CLUSTERS)
      this.clusterEvent(cluster, decideSetClusterLabels(ClusterAggregate.initialState(), cluster, { region: cluster }));
    for (let i = 0; i < this.poolCount; i++) {
      this.nodeNames.push(`node-${i}`);
      this.setNode(`node-${i}`, i);
      for (const cluster of MEMBER_CLUSTERS) this.setNode(`node-${i}`, i + 1, cluster);
    }
  }

  private step(): void {
    const roll = this.rand();
    if (roll < 0.03) this.fleetStep(roll / 0.03);
    else if (roll < 0.575) this.allocate();
    else if (roll < 0.989) this.release();
    else if (roll < 0.99) this.recyclePool();
    else if (roll < 0.993) this.updatePool();
    else if (roll < 0.9945)
      this.setNode(this.pick(this.nodeNames), this.serial, this.serial % 3 === 0 ? this.pick(MEMBER_CLUSTERS) : DEFAULT_CLUSTER);
    else if (roll < 0.995) this.deleteNode();
    else if (roll < 0.9975) this.reserveStatefulSet();
    else if (roll < 0.9985) this.resizeStatefulSet();
    else this.deleteStatefulSet();
  }

  /** The fleet's share of a busy history: a VM's first pod, a migration's second, a pod gone, a claim made persistent or deleted, a cluster made or deleted. */
  private fleetStep(roll: number): void {
    if (roll < 0.35) this.allocateForClaim();
    else if (roll < 0.5) this.migrateClaim();
    else if (roll < 0.75) this.dropReference();
    else if (roll < 0.85) this.persistClaim();
    else if (roll < 0.93) this.deleteClaim();
    else this.cycleCluster();
  }

  /** A cluster made, relabelled and deleted: it held nothing, so the delete is allowed. */
  private cycleCluster(): void {
    const name = `temp-${this.serial % 3}`;
    const state = this.clusters.get(name) ?? ClusterAggregate.initialState();
    if (state.exists) this.clusterEvent(name, decideDeleteCluster(state, name, { nodes: 0, allocations: 0, statefulSets: 0, ipSets: 0 }));
    else this.clusterEvent(name, decideSetClusterLabels(state, name, { purpose: `p${this.serial % 4}` }));
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
    // every other pod in a member cluster, with the handle of the default cluster's pod before it
    const cluster = n % 2 === 1 ? MEMBER_CLUSTERS[(n >> 1) % MEMBER_CLUSTERS.length] : DEFAULT_CLUSTER;
    const handle = `h-${n >> 1}`;
    try {
      const { event } = decideAllocate(pool.state, {
        handle,
        ...inCluster(cluster),
        node: this.pick(this.nodeNames),
        namespace: `ns-${n % 40}`,
        pod: `app-${n}`,
        podUid: n % 5 === 0 ? null : `uid-${n}`,
      });
      this.poolEvent(name, event);
      if (event) this.live.push({ pool: name, handle, cluster });
    } catch (err) {
      if (!(err instanceof DomainError)) throw err; // a full pool: the pod goes elsewhere
    }
  }

  private release(): void {
    if (this.live.length === 0) return this.allocate();
    const index = Math.floor(this.rand() * this.live.length);
    const { pool, handle, cluster } = this.live[index];
    this.live[index] = this.live[this.live.length - 1];
    this.live.pop();
    const released = decideRelease(this.pools.get(pool)!.state, handle, {}, cluster);
    if (released && cluster === DEFAULT_CLUSTER && this.rand() < 0.02) {
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
    // every other StatefulSet has its last pod not started yet: its address stays reserved
    const started = run.replicas - (this.serial % 2);
    for (let ordinal = 0; ordinal < started; ordinal++) {
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

  /** Empties a pool of its pods and claims (not its StatefulSets), deletes it and, every other time, creates it again. */
  private recyclePool(): void {
    const name = this.pick(this.poolNames);
    const { state } = this.pools.get(name)!;
    if (!state.exists || state.ranges.size > 0) return;
    for (const claim of this.claims.filter((c) => c.pool === name)) this.deleteClaim(claim);
    for (let i = this.live.length - 1; i >= 0; i--) {
      if (this.live[i].pool !== name) continue;
      this.poolEvent(name, decideRelease(this.pools.get(name)!.state, this.live[i].handle, {}, this.live[i].cluster));
      this.live[i] = this.live[this.live.length - 1];
      this.live.pop();
    }
    this.poolEvent(name, decideDeletePool(this.pools.get(name)!.state, name));
    if (this.serial % 2 === 0) this.createPool(Number(name.slice('pool-'.length)));
  }

  private claimEvents(claim: ClaimRun, events: DomainEvent[]): void {
    for (const event of events) {
      const version = this.emit(`${ClaimAggregate.streamPrefix}-${claim.name}`, event);
      claim.state = ClaimAggregate.evolve(claim.state, { ...event, version });
    }
  }

  private reference(claim: ClaimRun, cluster: string) {
    const n = this.serial;
    return { handle: `vm-${n}:eth0`, cluster, node: this.pick(this.nodeNames), namespace: `vms-${n % 5}`, pod: `virt-launcher-${n}` };
  }

  /** A VM's first pod: a claim (persistent every third time, made first as a PUT does) holding an address under its holding handle. */
  private allocateForClaim(): void {
    const pool = this.pick(this.poolNames);
    const { state } = this.pools.get(pool)!;
    if (!state.exists || state.disabled) return;
    const n = this.serial;
    const cluster = n % 3 === 0 ? DEFAULT_CLUSTER : MEMBER_CLUSTERS[n % MEMBER_CLUSTERS.length];
    const claim: ClaimRun = { name: `kubevirt:${cluster}:vms:vm-${n}`, state: ClaimAggregate.initialState(), pool, ip: '' };
    if (n % 3 === 1) this.claimEvents(claim, [decidePutClaim(claim.state, claim.name, { cluster })!]);
    const reference = this.reference(claim, cluster);
    try {
      const { event } = decideAllocate(state, {
        ...reference,
        handle: claimHolding(claim.name),
        ...inCluster(cluster),
        podUid: null,
        owner: 'external',
      });
      if (!event) return;
      this.poolEvent(pool, event);
      claim.ip = event.data.ip;
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      return;
    }
    this.claimEvents(claim, decideAddReference(claim.state, claim.name, reference, [{ ip: claim.ip, pool }]));
    this.claims.push(claim);
  }

  /** A live migration: the target's pod, in another cluster half the time, takes the address as a second reference. */
  private migrateClaim(): void {
    const claim = this.claims.find((c) => c.state.references.size === 1);
    if (!claim) return this.allocateForClaim();
    const [source] = claim.state.references.values();
    const cluster = this.serial % 2 === 0 ? source.cluster : this.pick(MEMBER_CLUSTERS);
    const target = this.reference(claim, cluster);
    // into another cluster, the caller's workload id: the source's handle
    const reference = cluster === source.cluster ? target : { ...target, handle: source.handle };
    this.claimEvents(claim, decideAddReference(claim.state, claim.name, reference, [{ ip: claim.ip, pool: claim.pool }]));
  }

  /** A pod's deletion drops its reference; a transient claim's last one releases its address. */
  private dropReference(): void {
    const claim =
      this.claims.find((c) => c.state.references.size > 0 && this.rand() < 0.5) ?? this.claims.find((c) => c.state.references.size > 0);
    if (!claim) return;
    const [reference] = claim.state.references.values();
    this.claimEvents(claim, decideDropReference(claim.state, claim.name, reference, [{ ip: claim.ip, pool: claim.pool }]));
    if (!claim.state.exists) this.releaseClaim(claim);
  }

  /** A transient claim PUT, as an IPAMClaim made for a running VM's claim is: it keeps its address with no reference. */
  private persistClaim(): void {
    const claim = this.claims.find((c) => !c.state.persistent);
    if (claim) this.claimEvents(claim, [decidePutClaim(claim.state, claim.name, { cluster: claim.state.cluster })!]);
  }

  /** A claim deleted (a persistent one's VirtualMachine deleted, or DELETE /v1/claims): its references dropped and its address released. */
  private deleteClaim(claim = this.claims.find((c) => c.state.persistent)): void {
    if (!claim) return;
    this.claimEvents(claim, decideDeleteClaim(claim.state, claim.name, [{ ip: claim.ip, pool: claim.pool }]));
    this.releaseClaim(claim);
  }

  private releaseClaim(claim: ClaimRun): void {
    const cluster = claim.name.split(':')[1];
    this.poolEvent(claim.pool, decideRelease(this.pools.get(claim.pool)!.state, claimHolding(claim.name), {}, cluster));
    this.claims.splice(this.claims.indexOf(claim), 1);
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
