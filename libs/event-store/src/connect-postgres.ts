import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { checkServerIdentity, type ConnectionOptions } from 'node:tls';
import { Client, Connection, DatabaseError, type ClientConfig, type PoolConfig } from 'pg';
import {
  describeHost,
  parseConnectionString,
  type ConnectionSettings,
  type HostAddress,
  type SslSettings,
  type TargetSessionAttrs,
} from './connection-string';

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

interface PostgresClientConfig extends ClientConfig {
  postgres: ConnectionEvents & { settings: ConnectionSettings };
}

/**
 * node-postgres settings for a libpq connection string: `new Pool(postgresConfig(url))` or
 * `connectPostgres(url)`. Every new connection, pooled or not, tries the URL's hosts in order and
 * keeps the first whose session matches target_session_attrs, so after a failover the pool's next
 * connection finds the new primary.
 */
export function postgresConfig(url: string, events: ConnectionEvents = {}): PostgresClientConfig & Pick<PoolConfig, 'Client'> {
  // pg-pool constructs its Client with the pool's options, which carry `postgres`
  const Client = PostgresClient as unknown as PoolConfig['Client'];
  return { Client, postgres: { ...events, settings: parseConnectionString(url) } };
}

/** One connection outside a pool (migrations, the CLI's lock holders, tests). */
export async function connectPostgres(url: string, events: ConnectionEvents = {}): Promise<PostgresClient> {
  const client = new PostgresClient(postgresConfig(url, events));
  await client.connect();
  return client;
}

/** SQLSTATE 25006: a write reached a standby (the old primary, demoted under a pooled connection). */
export const READ_ONLY_TRANSACTION = '25006';

const SESSION_STATE = `select pg_is_in_recovery() as in_recovery, current_setting('transaction_read_only') = 'on' as read_only,
  pg_postmaster_start_time()::text || ' ' || coalesce(inet_server_addr()::text || ':' || inet_server_port(), 'local') as identity`;

interface SessionState {
  in_recovery: boolean;
  read_only: boolean;
  identity: string;
}

/** pg.Client internals this file resets between host attempts (pg is pinned to an exact version). */
interface ClientInternals {
  host: string;
  port: number;
  ssl: false | ConnectionOptions;
  connection: Connection;
  connectionParameters: { host: string; port: number; ssl: false | ConnectionOptions };
  _connecting: boolean;
  _connected: boolean;
  _connectionError: boolean;
  _ending: boolean;
  _ended: boolean;
  _queryable: boolean;
  _connectionTimeoutMillis: number;
  connectionTimeoutHandle?: NodeJS.Timeout;
}

/** A failure to find a matching server among the URL's hosts: a connection failure (08001), so answered 503. */
export class NoMatchingServerError extends Error {
  constructor(
    message: string,
    readonly code: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * A pg.Client whose connect() walks the host list as libpq does: each host (and, for sslmode
 * allow/prefer, each of its TLS choices) gets a fresh protocol connection on this same client,
 * so a pool hands out what it always does: a client, connected once.
 */
export class PostgresClient extends Client {
  private readonly postgres: PostgresClientConfig['postgres'];
  private readonly keepAlive: boolean;
  private readonly deadlineMs: number;
  /** the server this client ended on */
  server: ServerInfo | undefined;

  constructor(config: PostgresClientConfig) {
    const { settings } = config.postgres;
    const { Client: _client, postgres: _postgres, connectionString: _url, ...rest } = config as PostgresClientConfig & { Client?: unknown };
    super({
      ...rest,
      host: settings.hosts[0].host,
      port: settings.hosts[0].port,
      user: settings.user,
      password: settings.password,
      database: settings.database,
      ssl: false,
      ...(settings.applicationName !== undefined ? { application_name: settings.applicationName } : {}),
      ...(settings.options !== undefined ? { options: settings.options } : {}),
    });
    this.postgres = config.postgres;
    this.keepAlive = Boolean(config.keepAlive);
    // a pool's connectionTimeoutMillis bounds the whole walk; connect_timeout bounds each host
    this.deadlineMs = config.connectionTimeoutMillis ?? 0;
    // an own property, not an override: callers keep pg's typed overloads
    this.query = this.watchedQuery.bind(this) as Client['query'];
  }

  override connect(): Promise<Client>;
  override connect(callback: ((err: Error) => void) | ((err: null, c: Client) => void)): void;
  override connect(callback?: ((err: Error) => void) | ((err: null, c: Client) => void)): Promise<Client> | void {
    const done = this.connectToTarget().then(() => this);
    if (!callback) return done;
    const report = callback as (err: Error | null, c?: Client) => void;
    done.then(
      (client) => report(null, client),
      (error: Error) => report(error),
    );
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
   * leaves the pool.
   */
  private watch(error: Error): void {
    const { code, severity } = error as DatabaseError;
    const lost =
      severity === 'FATAL' ||
      severity === 'PANIC' ||
      (!(error instanceof DatabaseError) && error.message.startsWith('Connection terminated'));
    if (!lost && code !== READ_ONLY_TRANSACTION) return;
    this.postgres.onLost?.(error);
    if (code === READ_ONLY_TRANSACTION) this.end().catch(() => undefined);
  }

  private async connectToTarget(): Promise<void> {
    // a connection lost during its state query fails that query, which fails the attempt; unheard
    // (the pool listens only once connect() is done), the 'error' event would end the process
    const duringConnect = () => undefined;
    this.on('error', duringConnect);
    try {
      await this.walkHosts();
    } finally {
      this.off('error', duringConnect);
    }
  }

  private async walkHosts(): Promise<void> {
    const { settings } = this.postgres;
    const deadline = this.deadlineMs > 0 ? Date.now() + this.deadlineMs : Infinity;
    const failures: Array<{ address: HostAddress; error: Error }> = [];
    for (const accepts of passes(settings.targetSessionAttrs)) {
      for (const address of settings.hosts) {
        for (const ssl of sslChoices(settings.ssl, address)) {
          if (Date.now() >= deadline) throw noMatch(settings, failures, 'timeout expired');
          try {
            const state = await this.attempt(address, ssl(), Math.min(settings.connectTimeoutMs || Infinity, deadline - Date.now()));
            if (accepts(state)) return this.chosen(state);
            this.drop();
            failures.push({
              address,
              error: new Error(state.inRecovery ? 'a standby (in recovery)' : state.readOnly ? 'read-only' : 'read-write'),
            });
            break;
          } catch (error) {
            this.drop();
            // a TLS choice that falls back is not this host's failure: the next choice's outcome is
            if (ssl.fallsBackOn?.(error as Error)) continue;
            failures.push({ address, error: error as Error });
            break;
          }
        }
      }
    }
    throw noMatch(settings, failures);
  }

  private chosen(server: ServerInfo): void {
    this.server = server;
    if (this.postgres.onLost) this.on('error', (error: Error) => this.postgres.onLost?.(error));
    this.postgres.onServer?.(server);
  }

  /** Connects this client's protocol to one host, then reads what libpq's target_session_attrs checks. */
  private async attempt(address: HostAddress, ssl: false | ConnectionOptions, timeoutMs: number): Promise<ServerInfo> {
    const self = this as unknown as ClientInternals;
    Object.assign(self, { host: address.host, port: address.port, ssl });
    Object.assign(self.connectionParameters, { host: address.host, port: address.port, ssl });
    Object.assign(self, {
      _connecting: false,
      _connected: false,
      _connectionError: false,
      _ending: false,
      _ended: false,
      _queryable: true,
    });
    self._connectionTimeoutMillis = Number.isFinite(timeoutMs) ? Math.max(1, timeoutMs) : 0;
    self.connection = new Connection({ ssl, keepAlive: this.keepAlive, encoding: 'utf8' } as ConstructorParameters<typeof Connection>[0]);
    await new Promise<void>((resolve, reject) =>
      Client.prototype.connect.call(this, (error: Error | null) => (error ? reject(error) : resolve())),
    );
    const { rows } = await (Client.prototype.query as (text: string) => Promise<{ rows: SessionState[] }>).call(this, SESSION_STATE);
    const [row] = rows;
    return { address, identity: `${describeHost(address)} ${row.identity}`, inRecovery: row.in_recovery, readOnly: row.read_only };
  }

  /** Ends the protocol connection of a failed or unmatched attempt; its events no longer reach the client. */
  private drop(): void {
    const self = this as unknown as ClientInternals;
    clearTimeout(self.connectionTimeoutHandle);
    const connection = self.connection;
    connection.removeAllListeners();
    connection.on('error', () => undefined);
    if (self._connected) connection.end();
    else (connection as unknown as { stream: { destroy(): void } }).stream.destroy();
  }
}

type Accepts = (server: ServerInfo) => boolean;

const ACCEPTS: Record<Exclude<TargetSessionAttrs, 'prefer-standby'>, Accepts> = {
  any: () => true,
  'read-write': (s) => !s.readOnly,
  'read-only': (s) => s.readOnly,
  primary: (s) => !s.inRecovery,
  standby: (s) => s.inRecovery,
};

/** libpq's prefer-standby walks the hosts for a standby, then again for any server. */
function passes(target: TargetSessionAttrs): Accepts[] {
  return target === 'prefer-standby' ? [ACCEPTS.standby, ACCEPTS.any] : [ACCEPTS[target]];
}

interface SslChoice {
  (): false | ConnectionOptions;
  /** the next choice is tried when this one fails so (libpq's allow and prefer) */
  fallsBackOn?: (error: Error) => boolean;
}

/** 28000: pg_hba.conf has no entry for this encryption (hostssl / hostnossl). */
const refusedByHba = (error: Error) => (error as DatabaseError).code === '28000';

/** The TLS choices of one host, in libpq's order; each builds its options (reading the files) when tried. */
function sslChoices(ssl: SslSettings, address: HostAddress): SslChoice[] {
  const plain: SslChoice = () => false;
  const unverified: SslChoice = () => ({ rejectUnauthorized: false, ...clientCertificate(ssl) });
  switch (ssl.mode) {
    case 'disable':
      return [plain];
    case 'allow':
      return [Object.assign(() => false as const, { fallsBackOn: refusedByHba }), unverified];
    case 'prefer':
      return [
        Object.assign(() => unverified() as ConnectionOptions, {
          fallsBackOn: (error: Error) => error.message === 'The server does not support SSL connections' || refusedByHba(error),
        }),
        plain,
      ];
    case 'require':
      // libpq: with a root certificate present, require verifies the chain as verify-ca does
      return [() => (rootCertificatePath(ssl) ? verified(ssl, address, false) : unverified())];
    case 'verify-ca':
      return [() => verified(ssl, address, false)];
    case 'verify-full':
      return [() => verified(ssl, address, true)];
  }
}

function verified(ssl: SslSettings, address: HostAddress, checkHost: boolean): ConnectionOptions {
  const rootCert = rootCertificatePath(ssl);
  if (!rootCert)
    throw new NoMatchingServerError(
      `root certificate file "${ssl.rootCert ?? defaultFile('root.crt')}" does not exist: name one with sslrootcert, ` +
        `use sslrootcert=system for the system's trusted roots, or an sslmode that does not verify the server`,
      '08001',
    );
  return {
    rejectUnauthorized: true,
    ...(rootCert === 'system' ? {} : { ca: readFileSync(rootCert, 'utf8') }),
    // verify-ca trusts any name the CA signed; verify-full the host as the URL spells it (IP SANs included)
    checkServerIdentity: checkHost ? (_name, cert) => checkServerIdentity(address.host, cert) : () => undefined,
    ...clientCertificate(ssl),
  };
}

/** sslrootcert, else ~/.postgresql/root.crt when it exists (libpq's default); undefined: none. */
function rootCertificatePath(ssl: SslSettings): string | undefined {
  if (ssl.rootCert !== undefined) return ssl.rootCert;
  const file = defaultFile('root.crt');
  return existsSync(file) ? file : undefined;
}

/** sslcert and sslkey, else ~/.postgresql/postgresql.crt and .key when they exist, as libpq sends them. */
function clientCertificate(ssl: SslSettings): Pick<ConnectionOptions, 'cert' | 'key'> {
  const cert = ssl.cert ?? defaultFile('postgresql.crt');
  const key = ssl.key ?? defaultFile('postgresql.key');
  if (ssl.cert === undefined && !existsSync(cert)) return {};
  return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
}

const defaultFile = (name: string) => join(homedir(), '.postgresql', name);

/**
 * The error of a connect that found no server: the one failure as it was when there was one host
 * (so `database does not exist` keeps its 3D000), else every host's reason, in order.
 */
function noMatch(settings: ConnectionSettings, failures: Array<{ address: HostAddress; error: Error }>, reason?: string): Error {
  if (!reason && failures.length === 1) return failures[0].error;
  const codes = new Set(failures.map(({ error }) => (error as DatabaseError).code));
  const code = codes.size === 1 && [...codes][0] ? [...codes][0]! : '08001';
  const tried = failures.map(({ address, error }) => `${describeHost(address)}: ${error.message}`).join('; ');
  return new NoMatchingServerError(
    `no server of ${settings.hosts.map(describeHost).join(',')} is ${settings.targetSessionAttrs}${reason ? ` (${reason})` : ''}: ${tried || 'none tried'}`,
    code,
    { cause: failures.at(-1)?.error },
  );
}
