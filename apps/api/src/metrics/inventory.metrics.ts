import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';
import { Gauge } from 'prom-client';
import { DEFAULT_CLUSTER } from '@ipledger/domain';
import type { Config } from '../config';
import { CONFIG, PG_POOL } from '../infrastructure/tokens';
import { Metrics } from './metrics';

interface PoolRow {
  name: string;
  family: number;
  capacity: string;
  allocated: string;
  reserved: string;
  range: string;
}

/**
 * What the pools hold, read at each scrape: one series per pool and state (5 a pool), so 100,000
 * pools make 500,000 series (roughly 1.5 GB of Prometheus memory, and a 60 MB scrape):
 * IPAM_METRICS_POOLS=top:<n> keeps the n fullest pools, off none. The leak and held-for-node
 * counts come with it, in the same scrape.
 */
@Injectable()
export class InventoryMetrics implements OnModuleInit {
  constructor(
    @Inject(PG_POOL) private readonly db: Pool,
    @Inject(CONFIG) private readonly config: Config,
    private readonly metrics: Metrics,
  ) {}

  onModuleInit(): void {
    const registers = [this.metrics.registry];
    // one read a scrape for both gauges, which the registry collects at once
    let reading: Promise<PoolRow[]> | null = null;
    const rows = () =>
      (reading ??= this.pools()
        .catch(() => [])
        .finally(() => setImmediate(() => (reading = null))));
    new Gauge({
      name: 'ipledger_pool_capacity_addresses',
      help: 'Addresses a pool can ever hand out',
      labelNames: ['pool', 'family'] as const,
      registers,
      async collect() {
        this.reset();
        for (const row of await rows()) this.set({ pool: row.name, family: String(row.family) }, Number(row.capacity));
      },
    });
    new Gauge({
      name: 'ipledger_pool_addresses',
      help: 'Addresses of a pool by state: allocated, reserved (never handed out), statefulset_range (kept for a StatefulSet), free',
      labelNames: ['pool', 'family', 'state'] as const,
      registers,
      async collect() {
        this.reset();
        for (const row of await rows()) {
          const labels = { pool: row.name, family: String(row.family) };
          const [total, allocated, reserved, range] = [row.capacity, row.allocated, row.reserved, row.range].map(Number);
          this.set({ ...labels, state: 'allocated' }, allocated);
          this.set({ ...labels, state: 'reserved' }, reserved);
          this.set({ ...labels, state: 'statefulset_range' }, range);
          this.set({ ...labels, state: 'free' }, total - allocated - reserved - range);
        }
      },
    });
    this.count(
      'ipledger_leak_candidates',
      'Addresses whose pod the last pod sync did not list: released if the next one misses it too',
      'kubernetes_leak_suspects',
    );
    this.count(
      'ipledger_held_for_node',
      'Addresses of deleted pods held for their node, whose sandbox may still use them',
      'kubernetes_held_addresses',
    );
  }

  /** the pools to export: all, the fullest n, or none (IPAM_METRICS_POOLS) */
  private async pools(): Promise<PoolRow[]> {
    const { metricsPools } = this.config;
    if (metricsPools === 'off') return [];
    const { rows } = await this.db.query<PoolRow>(
      `SELECT name, family, capacity::text, allocated::text, reserved_count::text AS reserved, range_reserved::text AS range FROM pools
        ORDER BY (allocated + range_reserved) / greatest(capacity, 1) DESC, name LIMIT $1`,
      [metricsPools === 'all' ? null : metricsPools],
    );
    return rows;
  }

  /** One series a cluster, 0 for one that holds none: a cluster's alert clears rather than vanishes. */
  private count(name: string, help: string, table: string): void {
    const db = this.db;
    new Gauge({
      name,
      help: `${help}, by cluster`,
      labelNames: ['cluster'] as const,
      registers: [this.metrics.registry],
      async collect() {
        const rows = await db
          .query<{ cluster: string; n: string }>(
            `SELECT c.name AS cluster, count(t.*) AS n
               FROM (SELECT name FROM clusters UNION SELECT '${DEFAULT_CLUSTER}') c
               LEFT JOIN ${table} t ON t.cluster = c.name
              GROUP BY c.name`,
          )
          .catch(() => null);
        this.reset();
        for (const row of rows?.rows ?? []) this.set({ cluster: row.cluster }, Number(row.n));
      },
    });
  }
}
