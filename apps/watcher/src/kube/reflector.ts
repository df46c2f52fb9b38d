import { setTimeout as sleep } from 'node:timers/promises';
import {
  forDeletion,
  KUBE_RESOURCE_PATHS,
  KUBE_TRANSFORMS,
  objectKey,
  type ChangeType,
  type KubeKind,
  type KubeObject,
  type LiveKey,
  type ObjectChange,
} from '@ipledger/messaging';
import { Backoff } from '@ipledger/runtime';
import { ResourceExpiredError, type KubeClient, type KubeList } from '@ipledger/kube';

/** Where a reflector's output goes; awaited, so a slow sink pauses the reflector instead of piling up changes. */
export interface ReflectorSink {
  change(change: ObjectChange): Promise<void>;
  /** after every (re)list and its changes: every live object, as of the list's resourceVersion */
  synced(kind: KubeKind, items: LiveKey[], resourceVersion: string, listedAt: Date): Promise<void>;
}

export interface ReflectorLogger {
  log(message: string): void;
  warn(message: string): void;
}

export interface ReflectorOptions {
  kind: KubeKind;
  client: KubeClient;
  sink: ReflectorSink;
  logger?: ReflectorLogger;
  /** list page size (default 500) */
  pageSize?: number;
  /** each watch asks the server to end it after a random whole number of seconds in [min, max] (default 300–600) */
  watchTimeoutSeconds?: { min: number; max: number };
  /** retry delays double from baseMs up to maxMs (±50% jitter), back to baseMs after resetAfterMs without failure */
  backoff?: { baseMs?: number; maxMs?: number; resetAfterMs?: number };
  /**
   * Between two watches, the live keys are announced again from the store (a sync marker without a
   * relist) when this many seconds passed since the last one (default 300): leak collection needs
   * consecutive syncs, and a healthy watch would otherwise never produce a second one.
   */
  resyncSeconds?: number;
  /**
   * Applied to every object as it is received, before the store or the sink sees it, as client-go's
   * `SetTransform` (default: the kind's trim, KUBE_TRANSFORMS): the store holds, and the bus
   * carries, only the fields ipledger reads.
   */
  transform?: (object: KubeObject) => KubeObject;
}

export interface ReflectorStats {
  lists: number;
  watches: number;
  /** relists forced by 410 Gone (expired resourceVersion or continue token) */
  expiredRelists: number;
  errors: number;
  /** watch events of the ADDED/MODIFIED/DELETED kind passed to the sink */
  events: number;
  /** watch MODIFIED events not passed on: nothing the sink gets changed but the resourceVersion (UNCHANGED_NOT_SENT) */
  unchanged: number;
  bookmarks: number;
  /** sync markers sent from the store between watches */
  resyncs: number;
}

/**
 * What the store keeps of an object: its uid (for sync markers), and as JSON text only what a
 * DELETED needs (forDeletion), read back only for the DELETED a relist may owe. 150,000 pods held
 * as object graphs took several times the memory of their text, and whole trimmed objects twice
 * that of their deletion's.
 */
interface Stored {
  uid: string;
  json: string;
  /** the object as last handed on, without its resourceVersion (UNCHANGED_NOT_SENT kinds only) */
  sent?: string;
}

/**
 * Kinds whose watch MODIFIED is handed on only when the trimmed object changed beyond its
 * resourceVersion. An IPPool's status patches (the API's own figures, written back by this
 * watcher) and a Node's status updates (heartbeats, capacity, images) come back as MODIFIED with
 * nothing ipledger reads changed; each was a message and a transaction in the API. A relist still
 * hands on every object: it may follow a lost stream. Thousands of these objects, not pods'
 * 150,000, so their text is kept.
 */
const UNCHANGED_NOT_SENT: ReadonlySet<KubeKind> = new Set<KubeKind>(['ippool', 'node']);

/** A sink failure: the change may be lost downstream, so the reflector relists. */
class SinkError extends Error {
  override name = 'SinkError';
}

/**
 * client-go's reflector for one kind: list (paginated), then watch from the list's resourceVersion,
 * re-watch from the last seen one when a watch ends, relist on 410 Gone, back off on other errors.
 * Never gives up before `stop()`. The store holds the last object of every live key, so a relist
 * can report what vanished in between as DELETED.
 */
export class Reflector {
  readonly kind: KubeKind;
  private readonly path: string;
  private readonly store = new Map<string, Stored>();
  private readonly counters: ReflectorStats = {
    lists: 0,
    watches: 0,
    expiredRelists: 0,
    errors: 0,
    events: 0,
    unchanged: 0,
    bookmarks: 0,
    resyncs: 0,
  };
  private readonly backoff: Backoff;
  private readonly transform: (object: KubeObject) => KubeObject;
  private lastResourceVersion: string | undefined;
  private abort: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private synced = false;
  private lastSyncAt = 0;
  private relistRequested = false;
  private watchAbort: AbortController | undefined;
  private markSynced!: () => void;
  private readonly firstSync = new Promise<void>((resolve) => (this.markSynced = resolve));

  constructor(private readonly options: ReflectorOptions) {
    this.kind = options.kind;
    this.path = KUBE_RESOURCE_PATHS[options.kind];
    this.transform = options.transform ?? KUBE_TRANSFORMS[options.kind];
    const { baseMs = 200, maxMs = 30_000, resetAfterMs = 60_000 } = options.backoff ?? {};
    this.backoff = new Backoff({ baseMs, maxMs }, resetAfterMs);
  }

  start(): void {
    if (this.loop) throw new Error(`reflector ${this.kind} already started`);
    this.abort = new AbortController();
    this.loop = this.run(this.abort.signal);
  }

  /** Ends the open watch or pending retry and resolves once the reflector is idle (a sink call in flight finishes first). */
  async stop(): Promise<void> {
    this.abort?.abort();
    await this.loop;
  }

  /**
   * Lists again now: the open watch ends. For a sink that learns late that an accepted change was
   * lost (a publish whose acknowledgement failed after the call returned).
   */
  relist(): void {
    this.relistRequested = true;
    this.watchAbort?.abort();
  }

  /** True once the first list has been handed to the sink, `synced` included. */
  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves with the first `hasSynced()`; stays pending if the reflector stops before that. */
  whenSynced(): Promise<void> {
    return this.firstSync;
  }

  get resourceVersion(): string | undefined {
    return this.lastResourceVersion;
  }

  /** The keys of the live objects, as of `resourceVersion`. */
  keys(): string[] {
    return [...this.store.keys()];
  }

  /** What a DELETED needs of the last object seen of a key, as of `resourceVersion` (see forDeletion). */
  object(key: string): KubeObject | undefined {
    const entry = this.store.get(key);
    return entry && (JSON.parse(entry.json) as KubeObject);
  }

  stats(): ReflectorStats {
    return { ...this.counters };
  }

  private get logger(): ReflectorLogger {
    return this.options.logger ?? console;
  }

  private async run(signal: AbortSignal): Promise<void> {
    let mustList = true;
    while (!signal.aborted) {
      try {
        if (mustList) {
          await this.listAndReplace(signal);
          mustList = false;
        } else if (Date.now() - this.lastSyncAt >= (this.options.resyncSeconds ?? 300) * 1000) {
          await this.resync();
        }
        await this.watch(signal);
        if (this.relistRequested) {
          this.relistRequested = false;
          mustList = true;
          this.logger.warn(`${this.kind}: relisting, as the sink asked`);
        }
      } catch (error) {
        if (signal.aborted) break;
        if (error instanceof ResourceExpiredError) {
          this.counters.expiredRelists++;
          this.logger.warn(`${this.kind}: resourceVersion ${this.lastResourceVersion} expired (410 Gone), relisting`);
          mustList = true;
          continue;
        }
        this.counters.errors++;
        if (error instanceof SinkError) mustList = true;
        const delay = this.backoff.next();
        this.logger.warn(`${this.kind}: ${(error as Error).message}; ${mustList ? 'relisting' : 'watching again'} in ${delay} ms`);
        await sleep(delay, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  /**
   * Like client-go's `Replace`, page by page: ADDED/MODIFIED for every listed object as its page
   * arrives (only one page of objects is ever held), then DELETED for what the list did not have,
   * then `synced`. Each object's changes keep their order: a key's DELETED is for an object no page
   * listed, or for another uid, and then comes before the new object's ADDED.
   */
  private async listAndReplace(signal: AbortSignal): Promise<void> {
    const listedAt = new Date();
    const listed = await this.listAll(signal, async (key, object) => {
      const known = this.store.get(key);
      // the same key with another uid is another object: the old one was deleted while nobody watched
      if (known && known.uid !== object.metadata.uid) await this.emit('DELETED', key, JSON.parse(known.json) as KubeObject);
      await this.emit(this.store.has(key) ? 'MODIFIED' : 'ADDED', key, object);
    });
    if (!listed) return;
    for (const [key, entry] of this.store) {
      if (!listed.keys.has(key)) await this.emit('DELETED', key, JSON.parse(entry.json) as KubeObject);
    }
    // the store now holds exactly the listed objects
    const items = this.liveKeys();
    await this.toSink(() => this.options.sink.synced(this.kind, items, listed.resourceVersion, listedAt));
    this.lastResourceVersion = listed.resourceVersion;
    this.lastSyncAt = Date.now();
    this.logger.log(`${this.kind}: listed ${items.length} objects at resourceVersion ${listed.resourceVersion}`);
    if (!this.synced) {
      this.synced = true;
      this.markSynced();
    }
  }

  private liveKeys(): LiveKey[] {
    return [...this.store].map(([key, entry]) => ({ key, uid: entry.uid }));
  }

  /** The store is exact as of the last resourceVersion seen, so it can stand in for a list. */
  private async resync(): Promise<void> {
    const items = this.liveKeys();
    await this.toSink(() => this.options.sink.synced(this.kind, items, this.lastResourceVersion ?? '', new Date()));
    this.lastSyncAt = Date.now();
    this.counters.resyncs++;
  }

  /**
   * Every page of one consistent list, each object handed to `each` as it arrives; an expired
   * continue token (410) starts the list over (what was handed already is handed again, as it is
   * now). The next page is asked for while the current one is handed on (the server's and the
   * sink's time overlap; at most two pages are held). The keys listed, and the list's
   * resourceVersion; null when stopped meanwhile.
   */
  private async listAll(
    signal: AbortSignal,
    each: (key: string, object: KubeObject) => Promise<void>,
  ): Promise<{ resourceVersion: string; keys: Set<string> } | null> {
    this.counters.lists++;
    const keys = new Set<string>();
    const fetchPage = (token: string | undefined) => {
      const page = this.options.client.list(this.path, { limit: this.options.pageSize ?? 500, continue: token, signal });
      // awaited only after the current page is handed on: a sink failure or a stop meanwhile must not leave it unhandled
      page.catch(() => undefined);
      return { token, page };
    };
    let next = fetchPage(undefined);
    for (;;) {
      let page: KubeList;
      try {
        page = await next.page;
      } catch (error) {
        if (signal.aborted) return null;
        if (!(error instanceof ResourceExpiredError) || !next.token) throw error;
        this.counters.expiredRelists++;
        this.logger.warn(`${this.kind}: list continue token expired (410 Gone) after ${keys.size} objects, listing again`);
        keys.clear();
        next = fetchPage(undefined);
        continue;
      }
      if (signal.aborted) return null;
      const token = page.metadata.continue || undefined;
      if (token) next = fetchPage(token);
      for (const object of page.items) {
        const trimmed = this.transform(object);
        const key = objectKey(trimmed);
        keys.add(key);
        await each(key, trimmed);
      }
      if (!token) return { resourceVersion: page.metadata.resourceVersion, keys };
    }
  }

  private async watch(signal: AbortSignal): Promise<void> {
    if (this.relistRequested) return;
    this.counters.watches++;
    this.watchAbort = new AbortController();
    const { min, max } = this.options.watchTimeoutSeconds ?? { min: 300, max: 600 };
    const events = this.options.client.watch(this.path, {
      resourceVersion: this.lastResourceVersion,
      timeoutSeconds: min + Math.floor(Math.random() * (max - min + 1)),
      allowWatchBookmarks: true,
      signal: AbortSignal.any([signal, this.watchAbort.signal]),
    });
    const startedAt = Date.now();
    let received = 0;
    for await (const event of events) {
      received++;
      if (event.type === 'BOOKMARK') {
        this.counters.bookmarks++;
      } else {
        const object = this.transform(event.object);
        const key = objectKey(object);
        const sent = this.sentText(object);
        if (event.type === 'MODIFIED' && sent !== undefined && sent === this.store.get(key)?.sent) {
          this.remember(key, object, sent);
          this.counters.unchanged++;
        } else {
          await this.emit(event.type, key, object);
          this.counters.events++;
        }
      }
      this.lastResourceVersion = event.object.metadata.resourceVersion;
    }
    // as client-go: a server that keeps closing watches at once must not be hammered in a tight loop
    if (!signal.aborted && !this.relistRequested && received === 0 && Date.now() - startedAt < 1000)
      throw new Error('very short watch: ended at once without events');
  }

  /** The store follows only what the sink accepted, so a relist after a sink failure repeats the lost change. */
  private async emit(type: ChangeType, key: string, object: KubeObject): Promise<void> {
    await this.toSink(() => this.options.sink.change({ kind: this.kind, type, object }));
    if (type === 'DELETED') this.store.delete(key);
    else this.remember(key, object);
  }

  private remember(key: string, object: KubeObject, sent = this.sentText(object)): void {
    this.store.set(key, { uid: object.metadata.uid, json: JSON.stringify(forDeletion(this.kind, object)), sent });
  }

  private sentText(object: KubeObject): string | undefined {
    if (!UNCHANGED_NOT_SENT.has(this.kind)) return undefined;
    return JSON.stringify({ ...object, metadata: { ...object.metadata, resourceVersion: undefined } });
  }

  private async toSink(call: () => Promise<void>): Promise<void> {
    try {
      await call();
    } catch (error) {
      throw new SinkError(`sink failed: ${(error as Error).message}`, { cause: error });
    }
  }
}
