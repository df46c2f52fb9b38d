import { Inject, Injectable } from '@nestjs/common';
import type { Config } from '../config';
import { Metrics } from '../metrics/metrics';
import { currentRequestContext } from './current-request';
import { ReplaysBusyError } from './replays-busy.error';
import { CONFIG } from './tokens';

/** What a refused read is told to wait: about one replay's time on a large pool. */
const RETRY_AFTER_SECONDS = 1;

/**
 * The replays of the past (`?at=`) this replica runs at once, and a bounded queue of those waiting:
 * each holds a pool's state in memory and takes the event loop for a page's fold at a time, so an
 * unbounded number of them would take the process past its memory limit and delay allocations.
 * Past the queue, a read is refused at once (ReplaysBusyError) rather than kept waiting. A read
 * whose client went away (its request's signal) leaves the queue at once: nobody would read its
 * answer, and its place goes to one that is still waited for.
 */
@Injectable()
export class ReplayQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly concurrency: number;
  private readonly bound: number;

  constructor(
    @Inject(CONFIG) config: Pick<Config, 'replayConcurrency' | 'replayQueue'>,
    private readonly metrics: Metrics,
  ) {
    this.concurrency = config.replayConcurrency;
    this.bound = config.replayQueue;
  }

  async run<T>(replay: () => Promise<T>): Promise<T> {
    const signal = currentRequestContext()?.signal;
    if (signal?.aborted) return this.drop(signal);
    if (this.running < this.concurrency) this.running++;
    else if (this.waiting.length < this.bound) await this.turn(signal);
    else {
      this.metrics.replays.inc({ outcome: 'refused' });
      throw new ReplaysBusyError(this.running, this.waiting.length, RETRY_AFTER_SECONDS);
    }
    try {
      this.metrics.replays.inc({ outcome: 'started' });
      return await replay();
    } finally {
      // the slot goes straight to the next in line, so a newcomer never overtakes it
      const next = this.waiting.shift();
      this.metrics.replaysWaiting.set(this.waiting.length);
      if (next) next();
      else this.running--;
    }
  }

  /** Resolves when a running replay hands this one its slot; rejects, out of the queue, if `signal` fires first. */
  private turn(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const start = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        this.waiting.splice(this.waiting.indexOf(start), 1);
        this.metrics.replaysWaiting.set(this.waiting.length);
        this.drop(signal!).catch(reject);
      };
      this.waiting.push(start);
      this.metrics.replaysWaiting.set(this.waiting.length);
      signal?.addEventListener('abort', leave, { once: true });
    });
  }

  private drop(signal: AbortSignal): Promise<never> {
    this.metrics.replays.inc({ outcome: 'dropped' });
    return Promise.reject(signal.reason as Error);
  }
}
