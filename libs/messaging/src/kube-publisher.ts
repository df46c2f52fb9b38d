import { randomUUID } from 'node:crypto';
import type { JetStreamClient } from 'nats';
import type { KubeKind } from './kube-kind';
import { batchMessageId, changeMessageId, syncMessageId } from './message-id';
import { changeSubject, DEFAULT_KUBE_CLUSTER, syncSubject, type StreamNames } from './subjects';
import { objectKey } from './kube-object';
import type { LiveKey, ObjectChange, SyncMarker } from './watch-change';

export interface KubePublisherOptions {
  /**
   * publishes awaiting their acknowledgement at once, and their bytes (default 256 and 1 MiB):
   * bounds memory while NATS is slow or away, and keeps each acknowledgement within `timeoutMs`
   * when messages are large (256 full batches in flight timed out under load, and every timeout
   * is a relist)
   */
  window?: number;
  windowBytes?: number;
  /** live keys per sync message; 5,000 keys stay far below NATS's 1 MiB payload limit */
  syncChunkSize?: number;
  /**
   * changes per message at most (default 128), and their JSON's size at most (default 128 KiB):
   * the consumer renews a batch's ack wait only once it took it, so what it pulled ahead must be
   * done within the wait, the slowest kind (Nodes, several transactions each) included
   */
  batchChanges?: number;
  batchBytes?: number;
  timeoutMs?: number;
  /** told when a publish fails after its call returned: the change may be lost, so the caller relists */
  onFailure?: (error: Error) => void;
  /**
   * told when an acknowledgement shows the stream made again (NATS restarted without its store, an
   * operator deleted it): what the lost stream held may never have been consumed, so the caller
   * relists. No publish need fail for it: the API may have made the stream again first.
   */
  onStreamMadeAgain?: (message: string) => void;
  /** IPAM_CLUSTER: the cluster whose objects these are, named by each message's subject (default `default`) */
  cluster?: string;
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value));

/** The changes of one kind not yet published: each as JSON, at most one per object. */
interface OpenBatch {
  keys: Set<string>;
  ids: string[];
  json: string[];
  bytes: number;
}

/**
 * Publishes what the reflectors see. Changes of one kind are gathered into batches (a message per
 * batch, a JetStream acknowledgement per batch: an initial list of 150,000 pods is a few hundred
 * messages), sent when full, when an object already in the batch changes again (one change per
 * object per message keeps each object's order the stream's), or at the end of the current turn
 * of the event loop (a watch event waits for nothing else). Publishes are pipelined (one connection keeps their order);
 * when one fails, `onFailure` is told and the next call throws, so the reflectors relist: a relist
 * publishes every live object as it is now, so a change is never lost, only repeated (and
 * deduplicated). Publishing the failed message again instead could put an older state of an
 * object after a newer one in the stream.
 */
export class KubePublisher {
  private readonly inFlight = new Set<Promise<void>>();
  private failure: Error | null = null;
  private readonly window: number;
  private readonly windowBytes: number;
  private bytesInFlight = 0;
  private readonly syncChunkSize: number;
  private readonly timeoutMs: number;
  private readonly batchChanges: number;
  private readonly batchBytes: number;
  private readonly open = new Map<KubeKind, OpenBatch>();
  private sendScheduled = false;
  private readonly onFailure: (error: Error) => void;
  private readonly onStreamMadeAgain: (message: string) => void;
  private readonly cluster: string;
  /** the last stream sequence an acknowledgement gave (duplicates aside) */
  private lastSequence = 0;
  published = 0;
  duplicates = 0;

  constructor(
    private readonly js: JetStreamClient,
    private readonly names: StreamNames,
    options: KubePublisherOptions = {},
  ) {
    this.window = options.window ?? 256;
    this.windowBytes = options.windowBytes ?? 1024 * 1024;
    this.syncChunkSize = options.syncChunkSize ?? 5000;
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.batchChanges = options.batchChanges ?? 128;
    this.batchBytes = options.batchBytes ?? 128 * 1024;
    this.onFailure = options.onFailure ?? (() => undefined);
    this.onStreamMadeAgain = options.onStreamMadeAgain ?? (() => undefined);
    this.cluster = options.cluster ?? DEFAULT_KUBE_CLUSTER;
  }

  /** Resolves once the change is in a batch (and any batch it closed is on its way): `flush` waits for it to be stored. */
  async change(change: ObjectChange): Promise<void> {
    this.throwFailure();
    const key = objectKey(change.object);
    const json = JSON.stringify({ type: change.type, object: change.object });
    const batch = this.open.get(change.kind);
    if (batch && (batch.keys.has(key) || batch.bytes + json.length > this.batchBytes)) await this.send(change.kind);
    const current = this.open.get(change.kind) ?? { keys: new Set<string>(), ids: [], json: [], bytes: 0 };
    this.open.set(change.kind, current);
    current.keys.add(key);
    current.ids.push(changeMessageId(change, this.cluster));
    current.json.push(json);
    current.bytes += json.length;
    if (current.json.length >= this.batchChanges) await this.send(change.kind);
    else this.scheduleSend();
  }

  /** The marker goes out only after every change before it is stored, in chunks that share one syncId. */
  async synced(kind: KubeKind, items: LiveKey[], resourceVersion: string, listedAt: Date): Promise<void> {
    await this.flush();
    const syncId = randomUUID();
    const chunks = Math.max(1, Math.ceil(items.length / this.syncChunkSize));
    for (let chunk = 0; chunk < chunks; chunk++) {
      const marker: SyncMarker = {
        kind,
        syncId,
        resourceVersion,
        listedAt: listedAt.toISOString(),
        chunk,
        chunks,
        items: items.slice(chunk * this.syncChunkSize, (chunk + 1) * this.syncChunkSize),
      };
      await this.publish(syncSubject(this.names, kind, this.cluster), encode(marker), syncMessageId(marker));
    }
    await this.flush();
  }

  /** Sends every open batch and waits for every acknowledgement; throws the first failure since the last call. */
  async flush(): Promise<void> {
    await this.sendAll();
    await Promise.all(this.inFlight);
    this.throwFailure();
  }

  /** At the end of the turn: the changes a list page or a watch chunk brought go together, and none waits longer. */
  private scheduleSend(): void {
    if (this.sendScheduled) return;
    this.sendScheduled = true;
    setImmediate(() => {
      this.sendScheduled = false;
      // never rejects: a failure reaches onFailure and the next call
      void this.sendAll();
    });
  }

  private async sendAll(): Promise<void> {
    for (const kind of [...this.open.keys()]) await this.send(kind);
  }

  private async send(kind: KubeKind): Promise<void> {
    const batch = this.open.get(kind);
    if (!batch) return;
    this.open.delete(kind);
    const body = `{"kind":${JSON.stringify(kind)},"changes":[${batch.json.join(',')}]}`;
    await this.publish(changeSubject(this.names, kind, this.cluster), Buffer.from(body), batchMessageId(batch.ids));
  }

  /** The caller learns of a failure at its next call (throwFailure); until then nothing more goes out, as the relist it causes publishes everything again. */
  private async publish(subject: string, data: Buffer, msgID: string): Promise<void> {
    while (this.inFlight.size >= this.window || (this.inFlight.size > 0 && this.bytesInFlight + data.length > this.windowBytes))
      await Promise.race(this.inFlight);
    if (this.failure) return;
    this.bytesInFlight += data.length;
    const ack = this.js.publish(subject, data, { msgID, timeout: this.timeoutMs }).then(
      (pubAck) => {
        this.published++;
        if (pubAck.duplicate) this.duplicates++;
        else {
          // one connection keeps the acknowledgements in publish order, and a stream's sequence only grows
          if (pubAck.seq < this.lastSequence)
            this.onStreamMadeAgain(`stream ${pubAck.stream} was made again (sequence ${pubAck.seq} after ${this.lastSequence})`);
          this.lastSequence = pubAck.seq;
        }
      },
      (err: Error) => {
        const failure = new Error(`publish to ${subject} (${msgID}) failed: ${err.message}`);
        if (!this.failure) this.onFailure(failure);
        this.failure ??= failure;
      },
    );
    const tracked = ack.finally(() => {
      this.inFlight.delete(tracked);
      this.bytesInFlight -= data.length;
    });
    this.inFlight.add(tracked);
  }

  private throwFailure(): void {
    const failure = this.failure;
    if (!failure) return;
    this.failure = null;
    // what was gathered before the failure must not go out after the relist's changes
    this.open.clear();
    // the caller relists now, perhaps into a stream made again: that alone must not cause another relist
    this.lastSequence = 0;
    throw failure;
  }
}
