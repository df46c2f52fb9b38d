import { Pool, type PoolClient, type PoolConfig } from 'pg';

export interface LeakCheckedPool {
  pool: Pool;
  /** clients checked out and not yet released: 0 between calls of code that releases what it takes */
  checkedOut(): number;
  /**
   * Ends the pool, first destroying the clients still checked out: `pool.end()` waits for every
   * one of them, so one leak would hang the test until jest's timeout, and a forced drop of the
   * database would then fail their connections with nobody listening.
   */
  end(): Promise<void>;
}

/** A pool for a test of code that must give its connections back: it knows which clients are out. */
export function leakCheckedPool(config: PoolConfig): LeakCheckedPool {
  const pool = new Pool(config);
  const out = new Set<PoolClient>();
  pool.on('acquire', (client) => out.add(client));
  pool.on('release', (_err, client) => out.delete(client));
  return {
    pool,
    checkedOut: () => out.size,
    async end() {
      for (const client of [...out]) client.release(new Error('leaked: destroyed at the end of the test'));
      await pool.end();
    },
  };
}
