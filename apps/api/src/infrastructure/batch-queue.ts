import { outsideRequest } from './current-request';

/**
 * The batching under the hot path's reads and writes: what is pushed while a batch runs, or in
 * the same turn of the event loop, goes in the next batch, and one batch runs at a time. Under
 * load a statement is then shared by every request that met in it (fewer statements, each
 * carrying more), while a lone request waits only for the end of the current turn.
 *
 * A batch is every request's and none's in particular, so it runs outside the async context of
 * the request that happened to start it (its abort signal, its log fields). `run` answers its
 * items, failures included: it must not reject.
 */
export class BatchQueue<T> {
  private waiting: T[] = [];
  private running = false;
  private scheduled = false;

  constructor(private readonly run: (batch: T[]) => Promise<void>) {}

  push(item: T): void {
    this.waiting.push(item);
    this.schedule();
  }

  /** After the current turn: the requests of one socket read, or of one batch's answers, go together. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.next();
    });
  }

  private next(): void {
    if (this.running || this.waiting.length === 0) return;
    const batch = this.waiting;
    this.waiting = [];
    this.running = true;
    outsideRequest(() => {
      void this.run(batch).finally(() => {
        this.running = false;
        this.schedule();
      });
    });
  }
}
