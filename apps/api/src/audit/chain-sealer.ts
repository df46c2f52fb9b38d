import { Inject, Injectable, Logger } from '@nestjs/common';
import { sealChain } from '@ipledger/event-store';
import type { Pool } from 'pg';
import type { Config } from '../config';
import { BackgroundLoop } from '../infrastructure/background-loop';
import { CONFIG, PG_POOL } from '../infrastructure/tokens';

/** Links sealed per transaction: a backlog is worked off in steps, each a short transaction. */
const BATCH = 1000;

/**
 * Extends the audit chain over committed events every IPAM_AUDIT_SEAL_INTERVAL_MS, off the append
 * path (libs/event-store/src/seal-chain.ts). Every replica runs one; an advisory lock lets one seal
 * at a time, and the others find nothing left to do.
 */
@Injectable()
export class ChainSealer extends BackgroundLoop {
  constructor(
    @Inject(CONFIG) private readonly config: Config,
    @Inject(PG_POOL) private readonly db: Pool,
  ) {
    super(new Logger('audit'), { failed: 'audit chain not sealed', recovered: 'sealing the audit chain again' });
  }

  protected firstDelayMs(): number {
    return 0;
  }

  protected intervalMs(): number {
    return this.config.auditSealIntervalMs;
  }

  protected async round(): Promise<number> {
    const sealed = await sealChain(this.db, BATCH);
    return sealed === BATCH ? 0 : this.intervalMs();
  }
}
