import { BatchQueue } from './batch-queue';

interface Waiting<K, V> {
  key: K;
  resolve(value: V): void;
  reject(reason: unknown): void;
}

/**
 * Reads of one kind that meet (see BatchQueue) are made together by one query: one statement,
 * one round trip for all of them, as the group commit does for writes.
 */
export class ReadBatcher<K, V> {
  private readonly queue: BatchQueue<Waiting<K, V>>;

  /** `readMany` answers every key, in order. */
  constructor(readMany: (keys: K[]) => Promise<V[]>) {
    this.queue = new BatchQueue((batch) =>
      readMany(batch.map((b) => b.key)).then(
        (values) => batch.forEach((b, i) => b.resolve(values[i])),
        (err: unknown) => batch.forEach((b) => b.reject(err)),
      ),
    );
  }

  read(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => this.queue.push({ key, resolve, reject }));
  }
}
