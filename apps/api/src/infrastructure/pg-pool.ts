import { Logger } from '@nestjs/common';
import { postgresConfig, type ConnectionEvents } from '@ipledger/event-store';
import { Pool, type ClientBase, type PoolConfig } from 'pg';
import { CancellablePool } from './cancellable-pool';

/**
 * A pool of libpq-style connections (host lists, target_session_attrs, sslmode: connect-postgres.ts)
 * whose connections can never crash the process. pg-pool listens for errors only on idle
 * clients; a client checked out when the server goes away (a restart, a failover, a terminated
 * backend) emits 'error' with no listener, and Node exits. Every client gets a listener of its
 * own for its whole life: the query in flight still fails (and is answered 503), the broken
 * client is discarded on release, and the pool's next connection finds the server that now matches.
 */
export function createPgPool(
  databaseUrl: string,
  config: Omit<PoolConfig, 'connectionString'>,
  options: { cancellable?: boolean; jit?: boolean; events?: ConnectionEvents } = {},
): Pool {
  const logger = new Logger('postgres');
  const poolConfig: PoolConfig = { connectionTimeoutMillis: 5_000, ...postgresConfig(databaseUrl, options.events), ...config };
  // The API's statements are short by design (indexed lookups, bounded pages), and PostgreSQL
  // prices JIT compilation on estimated cost: on tables not analyzed since a bulk load, a generic
  // plan of the allocation read was estimated high enough to be compiled on every execution, 0.6 s
  // each. pg-pool awaits what onConnect returns before it hands the connection out (@types/pg
  // declares it void).
  const onConnect = (client: ClientBase): Promise<unknown> => client.query('SET jit = off');
  // cancellable: the API's pool, whose queries end with their request (cancellable-pool.ts)
  const pool = new (options.cancellable ? CancellablePool : Pool)(
    options.jit === false ? Object.assign(poolConfig, { onConnect }) : poolConfig,
  );
  pool.on('error', (err) => logger.warn(`idle connection lost: ${err.message}`));
  pool.on('connect', (client) => client.on('error', (err) => logger.warn(`connection lost: ${err.message}`)));
  return pool;
}
