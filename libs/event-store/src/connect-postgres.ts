import type { ClientConfig } from 'pg';
import { parseConnectionString, type ConnectionSettings, type HostAddress } from './connection-string';
import { noMatchingServer, type HostFailure } from './no-matching-server.error';
import { PostgresClient, type ConnectionEvents, type ServerInfo } from './postgres-client';
import { sslChoices } from './ssl-choices';
import { describeSession, passes, readServer } from './target-session-attrs';

/** One connection outside a pool (migrations, the CLI's lock holders, tests); a pool: postgres-config.ts. */
export function connectPostgres(url: string, events: ConnectionEvents = {}): Promise<PostgresClient> {
  return walkHosts(parseConnectionString(url), events);
}

/**
 * libpq's host walk, on pg's documented API only: each host in order (and, for sslmode allow and
 * prefer, each of its TLS choices) gets a fresh `new Client({ host, port, ssl, ... })`; the first
 * whose session matches target_session_attrs is kept, every other one ended. `options` are the
 * pool's client options (keepAlive, ...): their connectionTimeoutMillis bounds the whole walk, as a
 * pool's does, and connect_timeout each attempt. `onAttempt` sees each client as it is tried.
 */
export async function walkHosts(
  settings: ConnectionSettings,
  events: ConnectionEvents,
  options: ClientConfig = {},
  onAttempt: (client: PostgresClient) => void = () => undefined,
): Promise<PostgresClient> {
  const deadline = options.connectionTimeoutMillis ? Date.now() + options.connectionTimeoutMillis : Infinity;
  const failures: HostFailure[] = [];
  for (const accepts of passes(settings.targetSessionAttrs)) {
    for (const address of settings.hosts) {
      for (const ssl of sslChoices(settings.ssl, address)) {
        if (Date.now() >= deadline) throw noMatchingServer(settings, failures, 'timeout expired');
        const timeoutMs = Math.min(settings.connectTimeoutMs || Infinity, deadline - Date.now());
        try {
          const config = clientConfig(options, settings, address, timeoutMs);
          const { client, server } = await attempt({ ...config, ssl: ssl() }, events, address, onAttempt);
          if (accepts(server)) {
            client.off('error', ignoreDuringWalk);
            client.keep(server);
            return client;
          }
          discard(client);
          failures.push({ address, error: new Error(describeSession(server)) });
          break;
        } catch (error) {
          // a TLS choice that falls back is not this host's failure: the next choice's outcome is
          if (ssl.fallsBackOn?.(error as Error)) continue;
          failures.push({ address, error: error as Error });
          break;
        }
      }
    }
  }
  throw noMatchingServer(settings, failures);
}

/** One host with one TLS choice: a connected client and the session it found. */
async function attempt(
  config: ClientConfig,
  events: ConnectionEvents,
  address: HostAddress,
  onAttempt: (client: PostgresClient) => void,
): Promise<{ client: PostgresClient; server: ServerInfo }> {
  const client = new PostgresClient(config, events);
  // a connection lost during the state query fails that query, and so the attempt; unheard, its
  // 'error' event would end the process
  client.on('error', ignoreDuringWalk);
  onAttempt(client);
  try {
    await client.connect();
    return { client, server: await readServer(client, address) };
  } catch (error) {
    discard(client);
    throw error;
  }
}

const ignoreDuringWalk = () => undefined;

/** Ends an attempt not kept; nothing waits for it (a failed one may never say it ended). */
function discard(client: PostgresClient): void {
  client.end().catch(() => undefined);
}

/** pg.Client's documented settings for one attempt; a pool's other options pass through. */
function clientConfig(options: ClientConfig, settings: ConnectionSettings, address: HostAddress, timeoutMs: number): ClientConfig {
  // pg reads a connectionString over host, port and ssl: the walk's choice must win
  const { connectionString: _url, ...passedThrough } = options;
  return {
    ...passedThrough,
    host: address.host,
    port: address.port,
    user: settings.user,
    password: settings.password,
    database: settings.database,
    connectionTimeoutMillis: Number.isFinite(timeoutMs) ? Math.max(1, timeoutMs) : 0,
    ...(settings.applicationName !== undefined ? { application_name: settings.applicationName } : {}),
    ...(settings.options !== undefined ? { options: settings.options } : {}),
  };
}
