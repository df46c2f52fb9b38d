import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Pool } from 'pg';
import { DatabaseServer } from './database-server';
import { PG_POOL } from './tokens';

/** How long a reading of the database's clock is carried forward before it is read again. */
const READ_AGAIN_MS = 10_000;

/**
 * The database's clock without a round trip per decision: read now and then, and carried forward
 * on this process's monotonic clock. Events are stamped by the database's clock, so a reuse delay
 * compares times of one clock. The reading counts as of when its answer arrived, so the round trip
 * only makes the estimate late, never early: a cooling address then waits a little longer, never
 * less. Before the first reading there is no estimate, and only the log's own times count.
 */
@Injectable()
export class DatabaseClock implements OnApplicationBootstrap {
  private reading: { database: number; local: number } | null = null;
  private pending: Promise<void> | null = null;

  constructor(
    @Inject(PG_POOL) private readonly db: Pool,
    server: DatabaseServer,
  ) {
    // another server (a failover) has a clock of its own
    server.onChange(() => (this.reading = null));
  }

  onApplicationBootstrap(): void {
    this.read();
  }

  /** Milliseconds since the epoch on the database's clock, or undefined before the first reading. */
  now(): number | undefined {
    const local = performance.now();
    if (!this.reading || local - this.reading.local > READ_AGAIN_MS) this.read();
    return this.reading ? this.reading.database + (local - this.reading.local) : undefined;
  }

  private read(): void {
    this.pending ??= this.db
      .query<{ now: Date }>('SELECT clock_timestamp() AS now')
      .then(({ rows }) => {
        this.reading = { database: rows[0].now.getTime(), local: performance.now() };
      })
      // the database is away: the last reading (or none, which is never early) stands until a later call reads again
      .catch(() => undefined)
      .finally(() => (this.pending = null));
  }
}
