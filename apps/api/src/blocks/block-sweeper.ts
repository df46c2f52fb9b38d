import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { findPoolsWithEmptyBlocks } from '@ipledger/projections';
import type { Pool } from 'pg';
import type { Config } from '../config';
import { BackgroundLoop } from '../infrastructure/background-loop';
import { CONFIG, PG_POOL } from '../infrastructure/tokens';
import { OwnTransaction } from '../infrastructure/unit-of-work';
import { BlockRelease } from './block-release';

/**
 * Every IPAM_BLOCK_SWEEP_INTERVAL_MS, releases the empty blocks whose pool's blockReleaseSeconds
 * have passed. Time is the database's clock, the one events are recorded by, so the delay is
 * measured between two recorded times and a replay of the log agrees. Every replica sweeps; the
 * pool stream's expected version lets one release a block, the other finds nothing left to do.
 */
@Injectable()
export class BlockSweeper extends BackgroundLoop {
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(PG_POOL) private readonly db: Pool,
    private readonly release: BlockRelease,
  ) {
    super(new Logger('blocks'), { failed: 'idle blocks not swept', recovered: 'sweeping idle blocks again' });
  }

  protected firstDelayMs(): number {
    return this.config.blockSweepIntervalMs;
  }

  protected intervalMs(): number {
    return this.config.blockSweepIntervalMs;
  }

  protected async round(): Promise<number> {
    const pools = await findPoolsWithEmptyBlocks(this.db);
    if (pools.length > 0) {
      const { rows } = await this.db.query<{ now: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS now');
      const metadata = { actor: 'system:block-sweeper', source: 'rest' as const, correlationId: randomUUID() };
      for (const pool of pools) {
        if (this.stopped) break;
        // a timer's work: no request to bound it, ATTEMPTS tries
        await this.release.idle(pool, rows[0].now, metadata, new OwnTransaction({ retries: true }));
      }
    }
    return this.intervalMs();
  }
}
