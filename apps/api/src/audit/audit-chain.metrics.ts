import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { readUnsealedCount } from '@ipledger/event-store';
import type { Pool } from 'pg';
import { Gauge } from 'prom-client';
import { PG_POOL } from '../infrastructure/tokens';
import { Metrics } from '../metrics/metrics';

/** How far the audit chain trails the log, read at each scrape: a sealer that stopped shows here. */
@Injectable()
export class AuditChainMetrics implements OnModuleInit {
  constructor(
    @Inject(PG_POOL) private readonly db: Pool,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    const db = this.db;
    new Gauge({
      name: 'ipledger_audit_unsealed_events',
      help: 'Committed events the audit chain (GET /v1/audit/head) does not cover yet; stays near 0 while a replica seals',
      registers: [this.metrics.registry],
      async collect() {
        // with the database away the gauge is left out of the scrape rather than failing it
        const unsealed = await readUnsealedCount(db).catch(() => null);
        if (unsealed === null) this.reset();
        else this.set(unsealed);
      },
    });
  }
}
