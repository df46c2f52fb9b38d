/**
 * Connection-level failures of Postgres: the server is restarting, failing over, unreachable or
 * refusing connections. A dependency is down, not a bug: HTTP answers 503 and the consumer retries without
 * counting the attempt toward parking.
 */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, shutting down)
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300', // too_many_connections
  // read_only_sql_transaction: a write reached a standby, the old primary demoted in a failover; its
  // connection leaves the pool (postgres-client.ts) and the next one finds the new primary
  '25006',
]);

/** node-postgres raises these without a code when the socket closes under a client. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
];

export function isDatabaseUnavailable(err: unknown): boolean {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.startsWith(m));
}
