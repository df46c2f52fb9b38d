import { Pool } from 'pg';
import { readSnapshot } from './read-snapshot';
import { readSnapshots } from './read-snapshots';
import { readStream } from './read-stream';
import { readStreams } from './read-streams';
import { RecordedEvent } from './recorded-event';
import { writeSnapshot } from './write-snapshot';

export interface AggregateType<S> {
  /** Stream id = `${streamPrefix}-${id}`; unique per aggregate type (it also keys the cache). */
  streamPrefix: string;
  initialState(): S;
  /** The state after `event`, as a new state: `state` is left as it was (the cache shares it with every caller). */
  evolve(state: S, event: { type: string; data: Record<string, unknown>; version: number; recordedAt?: Date }): S;
  /** evolve over many events, for a type that can do it for less than a copy of its state an event. */
  fold?(state: S, events: ReadonlyArray<{ type: string; data: Record<string, unknown>; version: number; recordedAt?: Date }>): S;
  snapshot?: {
    /**
     * Events between snapshots, given the state. A state whose snapshot grows with it is spaced by
     * its size: writing snapshots then costs the same per event however large the state, and a
     * load replays at most that many events after the latest one.
     */
    every(state: S): number;
    serialize(state: S): unknown;
    /**
     * Null for a snapshot this release cannot read (a format a newer release wrote, found after a
     * rollback): the stream is replayed from its start instead, never misread.
     */
    deserialize(json: unknown): S | null;
  };
  /** An estimate of the bytes the state holds, for the cache's memory bound; cheap (it runs after every load). */
  sizeOf?(state: S): number;
}

/** The state after `events`, in one fold where the type has one. */
export function foldEvents<S>(type: AggregateType<S>, state: S, events: ReadonlyArray<Parameters<AggregateType<S>['evolve']>[1]>): S {
  return type.fold ? type.fold(state, events) : events.reduce((folded, event) => type.evolve(folded, event), state);
}

export interface Loaded<S> {
  streamId: string;
  state: S;
  version: number;
}

interface Entry {
  state: unknown;
  version: number;
  /** the estimate counted in the cache's total */
  size: number;
  /** the version of the stream's latest snapshot, as far as this process knows; 0 for none */
  snapshotVersion: number;
}

/** The estimate for a type that gives none: a small state. */
const DEFAULT_SIZE = 1024;

/**
 * Loads aggregates at a cost that does not grow with their history: an in-process LRU of states,
 * bounded by the memory they hold (`cacheBytes`, from each type's sizeOf estimate) rather than by
 * their number, so a few huge pools (a fragmented /8) evict many small ones instead of exhausting
 * the process; checked against the database on every load by reading only the events after the cached version
 * (one indexed query, usually empty), so replicas appending to the same streams stay correct.
 * On a cache miss the snapshot, when the type keeps one, replaces the replay of old events.
 *
 * Contract: `Loaded.state` IS the cached object, shared by every caller of the same stream.
 * Callers only read it to decide; it changes only through `evolve` inside load/committed, in a
 * synchronous loop (evolve calls never interleave), and only with committed events newer than
 * the entry's version. So if another caller advances it while you are still deciding, the stream
 * is already past your `Loaded.version` and your append, made with that expected version, fails
 * with ConcurrencyError: you retry on fresh state and never commit a decision built on a mix.
 */
export class AggregateRepository {
  private readonly cache = new Map<string, Entry>();
  private readonly cacheBytes: number;
  private cachedBytes = 0;
  /** moves with forgetAll: a load that spans it started from states that may be gone */
  private generation = 0;

  private readonly upcast: (event: RecordedEvent) => RecordedEvent;

  /** `upcast` turns events of an older schema version into the current shape before they are folded. */
  constructor(
    private readonly pool: Pool,
    options: { cacheBytes?: number; upcast?: (event: RecordedEvent) => RecordedEvent } = {},
  ) {
    this.cacheBytes = options.cacheBytes ?? 160 * 1024 * 1024;
    this.upcast = options.upcast ?? ((event) => event);
  }

  load<S>(type: AggregateType<S>, id: string): Promise<Loaded<S>> {
    return this.loadStream(type, `${type.streamPrefix}-${id}`);
  }

  /**
   * Several aggregates of one type at once: one query for all their new events (and, for those not
   * cached, one for their snapshots).
   *
   * `trustCache`: cached entries are returned as they stand, without that query, to a caller that
   * appends at the returned versions and loads again without it after a ConcurrencyError. Versions
   * are contiguous and unique per stream, so an append made on an entry another replica has moved
   * past clashes on (stream_id, version): a decision on a stale entry is never committed, and a
   * stream only this process writes costs no read at all.
   */
  async loadMany<S>(type: AggregateType<S>, ids: readonly string[], options: { trustCache?: boolean } = {}): Promise<Array<Loaded<S>>> {
    const generation = this.generation;
    const streamIds = ids.map((id) => `${type.streamPrefix}-${id}`);
    const cached = streamIds.map((streamId) => this.cache.get(streamId));
    const uncached = streamIds.filter((_, i) => !cached[i]);
    const snapshots = type.snapshot && uncached.length > 0 ? await readSnapshots(this.pool, uncached) : new Map<string, never>();
    const entries = streamIds.map((streamId, i) => cached[i] ?? this.entryFrom(type, snapshots.get(streamId)));
    const unread = streamIds.flatMap((streamId, i) => (options.trustCache && cached[i] ? [] : [{ streamId, version: entries[i].version }]));
    const events = unread.length > 0 ? await readStreams(this.pool, unread) : [];
    const byStream = new Map<string, RecordedEvent[]>(streamIds.map((streamId) => [streamId, []]));
    for (const event of events) byStream.get(event.streamId)!.push(event);
    if (generation !== this.generation) return this.loadMany(type, ids, options);
    return streamIds.map((streamId, i) => {
      const entry = entries[i];
      this.advance(type, streamId, entry, byStream.get(streamId)!);
      return { streamId, state: entry.state as S, version: entry.version };
    });
  }

  /**
   * The cached state as it stands, reading nothing (undefined when not cached): for a look before
   * deciding whether a load is worth making. Like trustCache, it may be behind the database.
   */
  cached<S>(type: AggregateType<S>, id: string): Loaded<S> | undefined {
    const streamId = `${type.streamPrefix}-${id}`;
    const entry = this.cache.get(streamId);
    return entry && { streamId, state: entry.state as S, version: entry.version };
  }

  /**
   * An aggregate assumed to have no events yet, without reading anything: for bulk creation, where
   * nearly every stream is new. An append at expected version 0 proves the assumption or fails
   * with ConcurrencyError, after which the caller loads for real.
   */
  assumeNew<S>(type: AggregateType<S>, id: string): Loaded<S> {
    return { streamId: `${type.streamPrefix}-${id}`, state: type.initialState(), version: 0 };
  }

  /**
   * Call after a successful append of `recorded` made on `loaded`: moves the cached entry forward
   * without a re-read when it is still at the version the append expected (or makes it, for a
   * stream the append created: a bulk creation costs no read after it), and writes a snapshot
   * when the stream is `snapshot.every` events past its latest one. A failure here (snapshot
   * write) does not undo the append, which is already committed.
   */
  async committed<S>(type: AggregateType<S>, loaded: Loaded<S>, recorded: RecordedEvent[]): Promise<void> {
    const events = recorded.filter((event) => event.streamId === loaded.streamId);
    if (events.length === 0) return;
    const from = events[0].version - 1;
    const to = events[events.length - 1].version;
    // a stream this append created holds exactly these events: its entry needs no read
    const entry = this.cache.get(loaded.streamId) ?? (from === 0 ? this.entryFrom(type, null) : undefined);
    if (entry?.version === from) this.advance(type, loaded.streamId, entry, events);

    const codec = type.snapshot;
    if (!codec) return;
    // Without an entry that has these events (evicted, or behind), catch up from the database.
    if (!entry || entry.version < to) await this.loadStream(type, loaded.streamId);
    const current = this.cache.get(loaded.streamId);
    if (!current) return;
    if (current.version - current.snapshotVersion < codec.every(current.state as S)) return;
    const version = current.version;
    await writeSnapshot(this.pool, loaded.streamId, version, codec.serialize(current.state as S));
    current.snapshotVersion = Math.max(current.snapshotVersion, version);
  }

  forget(streamId: string): void {
    this.evict(streamId);
  }

  /**
   * Drops every cached state: the database server changed (a failover), and one that replicated
   * asynchronously may hold streams shorter than the cache. A load in flight starts over, so no
   * caller decides on a state the new server may not have.
   */
  forgetAll(): void {
    this.generation++;
    this.cache.clear();
    this.cachedBytes = 0;
  }

  /** The estimated bytes the cached states hold (see AggregateType.sizeOf). */
  get cachedSize(): number {
    return this.cachedBytes;
  }

  private async loadStream<S>(type: AggregateType<S>, streamId: string): Promise<Loaded<S>> {
    const generation = this.generation;
    const entry = await this.cachedOrSnapshot(type, streamId);
    const events = await readStream(this.pool, streamId, entry.version);
    if (generation !== this.generation) return this.loadStream(type, streamId);
    this.advance(type, streamId, entry, events);
    return { streamId, state: entry.state as S, version: entry.version };
  }

  private async cachedOrSnapshot<S>(type: AggregateType<S>, streamId: string): Promise<Entry> {
    return this.cache.get(streamId) ?? (await this.fromSnapshot(type, streamId));
  }

  private async fromSnapshot<S>(type: AggregateType<S>, streamId: string): Promise<Entry> {
    return this.entryFrom(type, type.snapshot ? await readSnapshot(this.pool, streamId) : null);
  }

  /**
   * A new entry at the snapshot, or at the start of the stream without one or with one the type
   * cannot read; the next commit past `every` then writes one it can (snapshotVersion 0).
   */
  private entryFrom<S>(type: AggregateType<S>, snapshot: { version: number; state: unknown } | null | undefined): Entry {
    const state = type.snapshot && snapshot ? type.snapshot.deserialize(snapshot.state) : null;
    return state !== null && snapshot
      ? { state, version: snapshot.version, size: 0, snapshotVersion: snapshot.version }
      : { state: type.initialState(), version: 0, size: 0, snapshotVersion: 0 };
  }

  /**
   * Applies `events` (contiguous, in version order) to `entry` and marks it most recently used.
   * A concurrent load or committed may have advanced the entry while we awaited the read, so
   * events it already has are skipped; the rest continue exactly where it stands.
   */
  private advance<S>(type: AggregateType<S>, streamId: string, entry: Entry, events: RecordedEvent[]): void {
    try {
      const fresh = events.filter((event) => event.version > entry.version).map(this.upcast);
      if (fresh.length) {
        entry.state = foldEvents(type, entry.state as S, fresh);
        entry.version = fresh.at(-1)!.version;
      }
    } catch (error) {
      // A half-applied event leaves a state that matches no version: never serve it again.
      if (this.cache.get(streamId) === entry) this.evict(streamId);
      throw error;
    }
    // out (this entry, or a twin a concurrent first load made) and back in as the most recent
    this.evict(streamId);
    entry.size = type.sizeOf?.(entry.state as S) ?? DEFAULT_SIZE;
    this.cachedBytes += entry.size;
    this.cache.set(streamId, entry);
    // least recently used first; the entry just used stays, however large
    for (const oldest of this.cache.keys()) {
      if (this.cachedBytes <= this.cacheBytes || oldest === streamId) break;
      this.evict(oldest);
    }
  }

  private evict(streamId: string): void {
    const entry = this.cache.get(streamId);
    if (!entry) return;
    this.cache.delete(streamId);
    this.cachedBytes -= entry.size;
    entry.size = 0;
  }
}
