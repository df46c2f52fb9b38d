import type { Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';

/** What a loop says when a round fails, and when it works again after failing. */
export interface LoopMessages {
  failed: string;
  recovered: string;
}

/**
 * A task every replica runs in the background, one round at a time, until shutdown. A round that
 * fails is logged once per outage, not every interval: the database being away is reported by
 * /readyz. Shutdown waits for the round under way.
 */
export abstract class BackgroundLoop implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  protected stopped = false;
  private failing = false;

  protected constructor(
    private readonly logger: Logger,
    private readonly messages: LoopMessages,
  ) {}

  /** The delay before the first round. */
  protected abstract firstDelayMs(): number;
  /** One round; answers the delay before the next. */
  protected abstract round(): Promise<number>;
  /** The delay after a failed round. */
  protected abstract intervalMs(): number;

  onApplicationBootstrap(): void {
    this.schedule(this.firstDelayMs());
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runRound().finally(() => (this.running = null));
    }, delayMs);
  }

  private async runRound(): Promise<void> {
    let next = this.intervalMs();
    try {
      next = await this.round();
      if (this.failing) this.logger.log(this.messages.recovered);
      this.failing = false;
    } catch (err) {
      if (!this.failing) this.logger.warn(`${this.messages.failed}: ${(err as Error).message}`);
      this.failing = true;
    }
    this.schedule(next);
  }
}
