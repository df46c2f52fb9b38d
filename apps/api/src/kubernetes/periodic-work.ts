import type { Logger } from '@nestjs/common';

/** Work the consumer does on timers, each one run at a time; a failure is logged and the next tick tries again. */
export class PeriodicWork {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  every(ms: number, failure: string, work: () => Promise<void>): void {
    let run: Promise<void> | null = null;
    this.timers.push(
      setInterval(() => {
        if (run) return;
        run = work()
          .catch((err: Error) => this.logger.warn(`${failure}: ${err.message}`))
          .finally(() => {
            this.running.delete(run!);
            run = null;
          });
        this.running.add(run);
      }, ms),
    );
  }

  /** No tick starts after this; the runs under way are waited for. */
  async stop(): Promise<void> {
    this.timers.forEach((timer) => clearInterval(timer));
    await Promise.all(this.running);
  }
}
