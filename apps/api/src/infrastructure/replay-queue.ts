import { Inject, Injectable } from '@nestjs/common';
import type { Config } from '../config';
import { ReplaysBusyError } from './replays-busy.error';
import { CONFIG } from './tokens';

/** What a refused read is told to wait: about one replay's time on a large pool. */
const RETRY_AFTER_SECONDS = 1;

/**
 * The replays of the past (`?at=`) this replica runs at once, and a bounded queue of those waiting:
 * each holds a pool's state in memory and takes the event loop for a page's fold at a time, so an
 * unbounded number of them would take the process past its memory limit and delay allocations.
 * Past the queue, a read is refused at once (ReplaysBusyError) rather than kept waiting.
 */
@Injectable()
export class ReplayQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private readonly concurrency: number;
  private readonly bound: number;

  constructor(@Inject(CONFIG) config: Pick<Config, 'replayConcurrency' | 'replayQueue'>) {
    this.concurrency = config.replayConcurrency;
    this.bound = config.replayQueue;
  }

  async run<T>(replay: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency) this.running++;
    else if (this.waiting.length < this.bound) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else throw new ReplaysBusyError(this.running, this.waiting.length, RETRY_AFTER_SECONDS);
    try {
      return await replay();
    } finally {
      // the slot goes straight to the next in line, so a newcomer never overtakes it
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
