import { Logger } from '@nestjs/common';
import { Pool, type ClientBase, type PoolConfig } from 'pg';
import { CancellablePool } from './cancellable-pool';

/**
 * A pool whose connections can never crash the process. pg-pool listens for errors only on idle
 * clients; a client checked out when the server goes away (a restart, a failover, a terminated
 * backend) emits 'error' with no listener, and Node exits. Every client gets a listener of its
 * own for its whole life: the query in flight still fails (and is answered 503), the broken
 * client is discarded on release, and the pool connects afresh once the server is back.
 */
export function createPgPool(config: PoolConfig, options: { cancellable?: boolean; genericPlans?: boolean } = {}): Pool {
  const logger = new Logger('postgres');
  const poolConfig: PoolConfig = { connectionTimeoutMillis: 5_000, ...config };
  // Prepared statements (event-store/prepared.ts) are planned once per connection, not on every
  // call: by default PostgreSQL keeps re-planning statements over arrays (it prices a generic plan
  // for ten elements against a custom one for the one it sees), and planning costs more than
  // running the hot path's statements. pg-pool awaits what onConnect returns before it hands the
  // connection out (@types/pg declares it void).
  const onConnect = (client: ClientBase): Promise<unknown> => client.query('SET plan_cache_mode = force_generic_plan');
  // cancellable: the API's pool, whose queries end with their request (cancellable-pool.ts)
  const pool = new (options.cancellable ? CancellablePool : Pool)(
    options.genericPlans ? Object.assign(poolConfig, { onConnect }) : poolConfig,
  );
  pool.on('error', (err) => logger.warn(`idle connection lost: ${err.message}`));
  pool.on('connect', (client) => client.on('error', (err) => logger.warn(`connection lost: ${err.message}`)));
  return pool;
}
