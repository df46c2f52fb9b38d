import { outsideRequest } from '../http/request-context';

/**
 * Reads of one kind that arrive while one is running are made together by the next query (one
 * statement, one round trip for all of them), as the group commit does for writes: under load the
 * hot path's reads cost a share of a statement each; a lone read goes out at once.
 */
export class ReadBatcher<K, V> {
  private waiting: Array<{ key: K; resolve(value: V): void; reject(reason: unknown): void }> = [];
  private running = false;

  /** `readMany` answers every key, in order. */
  constructor(private readonly readMany: (keys: K[]) => Promise<V[]>) {}

  read(key: K): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      this.waiting.push({ key, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    if (this.running || this.waiting.length === 0) return;
    const batch = this.waiting;
    this.waiting = [];
    this.running = true;
    // shared by every request in it: not cancelled when the one that started it goes away
    outsideRequest(() => {
      this.readMany(batch.map((b) => b.key))
        .then(
          (values) => batch.forEach((b, i) => b.resolve(values[i])),
          (err: unknown) => batch.forEach((b) => b.reject(err)),
        )
        .finally(() => {
          this.running = false;
          this.next();
        });
    });
  }
}
