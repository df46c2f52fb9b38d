import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { readUnsealedCount } from '@ipledger/event-store';
import type { Pool } from 'pg';
import { Gauge } from 'prom-client';
import { PG_POOL } from '../infrastructure/tokens';
import { Metrics } from '../metrics/metrics';
import { ChainSealer } from './chain-sealer';

/**
 * How far the audit chain trails the log, read at each scrape: a sealer that stopped shows here;
 * and whether the stored chain still extends what this replica sealed.
 */
@Injectable()
export class AuditChainMetrics implements OnModuleInit {
  constructor(
    @Inject(PG_POOL) private readonly db: Pool,
    private readonly metrics: Metrics,
    private readonly sealer: ChainSealer,
  ) {}

  onModuleInit(): void {
    const db = this.db;
    const sealer = this.sealer;
    const registers = [this.metrics.registry];
    new Gauge({
      name: 'ipledger_audit_unsealed_events',
      help: 'Committed events the audit chain (GET /v1/audit/head) does not cover yet; stays near 0 while a replica seals',
      registers,
      async collect() {
        // with the database away the gauge is left out of the scrape rather than failing it
        const unsealed = await readUnsealedCount(db).catch(() => null);
        if (unsealed === null) this.reset();
        else this.set(unsealed);
      },
    });
    new Gauge({
      name: 'ipledger_audit_chain_broken',
      help: '1 once the stored audit chain no longer extends the head this replica sealed (a rewrite of the log): it has stopped sealing',
      registers,
      collect() {
        this.set(sealer.difference ? 1 : 0);
      },
    });
    new Gauge({
      name: 'ipledger_audit_chain_first_differing_link',
      help: 'The number of the first link (the n-th event of the feed) where the stored audit chain differs from what this replica sealed; 0 while none does',
      registers,
      collect() {
        this.set(sealer.difference?.link ?? 0);
      },
    });
  }
}
