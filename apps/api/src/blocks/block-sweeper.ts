import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { findPoolsWithEmptyBlocks } from '@ipledger/projections';
import type { Pool } from 'pg';
import type { Config } from '../config';
import { CONFIG, PG_POOL } from '../infrastructure/tokens';
import { BlockRelease } from './block-release';

/**
 * Every IPAM_BLOCK_SWEEP_INTERVAL_MS, releases the empty blocks whose pool's blockReleaseSeconds
 * have passed. Time is the database's clock, the one events are recorded by, so the delay is
 * measured between two recorded times and a replay of the log agrees. Every replica sweeps; the
 * pool stream's expected version lets one release a block, the other finds nothing left to do.
 */
@Injectable()
export class BlockSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('blocks');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private stopped = false;
  private failing = false;

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(PG_POOL) private readonly db: Pool,
    private readonly release: BlockRelease,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.sweep().finally(() => (this.running = null));
    }, this.config.blockSweepIntervalMs);
  }

  private async sweep(): Promise<void> {
    try {
      const pools = await findPoolsWithEmptyBlocks(this.db);
      if (pools.length > 0) {
        const { rows } = await this.db.query<{ now: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now');
        const metadata = { actor: 'system:block-sweeper', source: 'rest' as const, correlationId: randomUUID() };
        for (const pool of pools) {
          if (this.stopped) break;
          await this.release.idle(pool, rows[0].now, metadata);
        }
      }
      if (this.failing) this.logger.log('sweeping idle blocks again');
      this.failing = false;
    } catch (err) {
      // once per outage: the database being away is reported by /readyz
      if (!this.failing) this.logger.warn(`idle blocks not swept: ${(err as Error).message}`);
      this.failing = true;
    }
    this.schedule();
  }
}
