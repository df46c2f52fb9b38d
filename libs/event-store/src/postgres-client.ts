import { Client, DatabaseError, type ClientConfig } from 'pg';
import type { HostAddress } from './connection-string';

/** What a new connection found at the end of it, as libpq's target_session_attrs sees it. */
export interface ServerInfo {
  address: HostAddress;
  /** differs when a connection lands on another server, or on the same one restarted */
  identity: string;
  inRecovery: boolean;
  readOnly: boolean;
}

export interface ConnectionEvents {
  /** each new connection, once its server is chosen */
  onServer?: (server: ServerInfo) => void;
  /** a connection lost, or refused a write because its server became a standby under it (25006) */
  onLost?: (reason: Error) => void;
}

/** SQLSTATE 25006: a write reached a standby (the old primary, demoted under a pooled connection). */
export const READ_ONLY_TRANSACTION = '25006';

/**
 * A pg.Client to one server, as the host walk (connect-postgres.ts) makes one for each attempt.
 * Once the walk keeps it, it reports its loss: an 'error' event, a query that failed with its
 * connection, or a write its server refused as a standby (it then ends, so a pool drops it).
 */
export class PostgresClient extends Client {
  /** the server the walk kept this client for; undefined while it is still an attempt */
  server: ServerInfo | undefined;
  private readonly events: ConnectionEvents;

  constructor(config: ClientConfig, events: ConnectionEvents) {
    super(config);
    this.events = events;
    // an own property, not an override: callers keep pg's typed overloads
    this.query = this.watchedQuery.bind(this) as Client['query'];
  }

  /** The walk keeps this connection: from now on its losses are heard, and its server is announced. */
  keep(server: ServerInfo): void {
    this.server = server;
    if (this.events.onLost) this.on('error', (error: Error) => this.events.onLost?.(error));
    this.events.onServer?.(server);
  }

  // pg's query() has many overloads; this forwards them all and watches their errors
  private watchedQuery(...args: unknown[]): unknown {
    const superQuery = (Client.prototype.query as (...a: unknown[]) => unknown).bind(this);
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (error: Error | null, result: unknown) => {
        if (error) this.watch(error);
        (last as (e: Error | null, r: unknown) => void)(error, result);
      };
      return superQuery(...args);
    }
    const result = superQuery(...args);
    if (result instanceof Promise)
      return result.catch((error: Error) => {
        this.watch(error);
        throw error;
      });
    return result;
  }

  /**
   * A query that failed with its connection (the server ended the session: FATAL; the socket
   * closed) is a loss like an 'error' event, which pg does not emit when the query took the error.
   * A standby answering a write (25006) is one too: this connection will never write again, so it
   * ends and leaves the pool. An attempt's failures are the walk's to judge, not losses.
   */
  private watch(error: Error): void {
    if (!this.server) return;
    const { code, severity } = error as DatabaseError;
    const lost =
      severity === 'FATAL' ||
      severity === 'PANIC' ||
      (!(error instanceof DatabaseError) && error.message.startsWith('Connection terminated'));
    if (!lost && code !== READ_ONLY_TRANSACTION) return;
    this.events.onLost?.(error);
    if (code === READ_ONLY_TRANSACTION) this.end().catch(() => undefined);
  }
}
