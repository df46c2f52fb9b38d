import { randomUUID } from 'node:crypto';
import type { JetStreamClient } from 'nats';
import type { KubeKind } from './kube-kind';
import { changeMessageId, syncMessageId } from './message-id';
import { changeSubject, syncSubject, type StreamNames } from './subjects';
import type { LiveKey, ObjectChange, SyncMarker } from './watch-change';

export interface KubePublisherOptions {
  /** publishes awaiting their acknowledgement at once: bounds memory while NATS is slow or away */
  window?: number;
  /** live keys per sync message; 5,000 keys stay far below NATS's 1 MiB payload limit */
  syncChunkSize?: number;
  timeoutMs?: number;
  /** told when a publish fails after its call returned: the change may be lost, so the caller relists */
  onFailure?: (error: Error) => void;
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value));

/**
 * Publishes what the reflectors see. Publishes are pipelined (one connection keeps their order);
 * when one fails, `onFailure` is told and the next call throws, so the reflectors relist: a relist
 * publishes every live object as it is now, so a change is never lost, only repeated (and
 * deduplicated). Publishing the failed message again instead could put an older state of an
 * object after a newer one in the stream.
 */
export class KubePublisher {
  private readonly inFlight = new Set<Promise<void>>();
  private failure: Error | null = null;
  private readonly window: number;
  private readonly syncChunkSize: number;
  private readonly timeoutMs: number;
  private readonly onFailure: (error: Error) => void;
  published = 0;
  duplicates = 0;

  constructor(
    private readonly js: JetStreamClient,
    private readonly names: StreamNames,
    options: KubePublisherOptions = {},
  ) {
    this.window = options.window ?? 256;
    this.syncChunkSize = options.syncChunkSize ?? 5000;
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.onFailure = options.onFailure ?? (() => undefined);
  }

  async change(change: ObjectChange): Promise<void> {
    await this.publish(changeSubject(this.names, change.kind), change, changeMessageId(change));
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
      await this.publish(syncSubject(this.names, kind), marker, syncMessageId(marker));
    }
    await this.flush();
  }

  /** Waits for every acknowledgement; throws the first failure since the last call. */
  async flush(): Promise<void> {
    await Promise.all(this.inFlight);
    this.throwFailure();
  }

  private async publish(subject: string, body: unknown, msgID: string): Promise<void> {
    this.throwFailure();
    while (this.inFlight.size >= this.window) await Promise.race(this.inFlight);
    this.throwFailure();
    const ack = this.js.publish(subject, encode(body), { msgID, timeout: this.timeoutMs }).then(
      (pubAck) => {
        this.published++;
        if (pubAck.duplicate) this.duplicates++;
      },
      (err: Error) => {
        const failure = new Error(`publish to ${subject} (${msgID}) failed: ${err.message}`);
        if (!this.failure) this.onFailure(failure);
        this.failure ??= failure;
      },
    );
    const tracked = ack.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private throwFailure(): void {
    const failure = this.failure;
    if (!failure) return;
    this.failure = null;
    throw failure;
  }
}
