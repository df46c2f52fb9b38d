import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { sealChain } from '@ipledger/event-store';
import type { Pool } from 'pg';
import type { Config } from '../config';
import { CONFIG, PG_POOL } from '../infrastructure/tokens';

/** Links sealed per transaction: a backlog is worked off in steps, each a short transaction. */
const BATCH = 1000;

/**
 * Extends the audit chain over committed events every IPAM_AUDIT_SEAL_INTERVAL_MS, off the append
 * path (libs/event-store/src/seal-chain.ts). Every replica runs one; an advisory lock lets one seal
 * at a time, and the others find nothing left to do.
 */
@Injectable()
export class ChainSealer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('audit');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private stopped = false;
  private failing = false;

  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(PG_POOL) private readonly db: Pool,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.seal().finally(() => (this.running = null));
    }, delayMs);
  }

  private async seal(): Promise<void> {
    let sealed = 0;
    try {
      sealed = await sealChain(this.db, BATCH);
      if (this.failing) this.logger.log('sealing the audit chain again');
      this.failing = false;
    } catch (err) {
      // once per outage, not every interval: the database being away is reported by /readyz
      if (!this.failing) this.logger.warn(`audit chain not sealed: ${(err as Error).message}`);
      this.failing = true;
    }
    this.schedule(sealed === BATCH ? 0 : this.config.auditSealIntervalMs);
  }
}
