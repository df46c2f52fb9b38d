import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { readFeedLag, type FeedLag } from '@ipledger/event-store';
import type { Pool } from 'pg';
import { Gauge } from 'prom-client';
import { PG_POOL } from '../infrastructure/tokens';
import { Metrics } from '../metrics/metrics';

/**
 * GET /v1/events serves an event only once every transaction older than it has ended, cluster-wide
 * (read-all.ts): a long transaction anywhere on the PostgreSQL server holds the feed back. These
 * gauges, read at each scrape, say by how much, so the stall is seen and alerted on.
 */
@Injectable()
export class FeedLagMetrics implements OnModuleInit {
  constructor(
    @Inject(PG_POOL) private readonly db: Pool,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    this.gauge(
      'ipledger_events_feed_lag_seconds',
      'How long the oldest committed event GET /v1/events does not serve yet has waited (0: the feed is current)',
      (lag) => lag.seconds,
    );
    this.gauge(
      'ipledger_events_feed_held_back_events',
      'Committed events GET /v1/events does not serve yet: a transaction older than them is still running somewhere on the PostgreSQL server',
      (lag) => lag.heldBack,
    );
  }

  private gauge(name: string, help: string, value: (lag: FeedLag) => number): void {
    const db = this.db;
    new Gauge({
      name,
      help,
      registers: [this.metrics.registry],
      async collect() {
        // with the database away the gauge is left out of the scrape rather than failing it
        const lag = await readFeedLag(db).catch(() => null);
        if (lag) this.set(value(lag));
        else this.reset();
      },
    });
  }
}
