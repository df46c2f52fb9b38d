import { Client, type PoolConfig } from 'pg';
import { walkHosts } from './connect-postgres';
import { parseConnectionString } from './connection-string';
import type { ConnectionEvents, PostgresClient } from './postgres-client';

type ConnectCallback = (error: Error | null, client?: Client) => void;

/**
 * node-postgres settings for a libpq connection string: `new Pool(postgresConfig(url))`. Every new
 * connection of the pool walks the URL's hosts (connect-postgres.ts) and keeps the first whose
 * session matches target_session_attrs, so after a failover the pool's next connection finds the
 * new primary.
 */
export function postgresConfig(url: string, events: ConnectionEvents = {}): Pick<PoolConfig, 'Client'> {
  const settings = parseConnectionString(url);
  // pg-pool's documented `Client` option: the constructor it calls as `new Client(poolOptions)`
  function HostListClient(options: PoolConfig): Client {
    const { Client: _self, ...clientOptions } = options;
    return clientHandle((onAttempt) => walkHosts(settings, events, clientOptions, onAttempt));
  }
  return { Client: HostListClient as unknown as PoolConfig['Client'] };
}

/**
 * pg-pool makes its client first and connects it after, and keeps that one object as the
 * connection; which pg.Client to keep, the walk learns only while connecting. So the pool holds a
 * handle: its connect() walks the hosts, and every other property and method is that of the client
 * being tried, then of the one kept (pg-pool's connect timeout ends the attempt in progress).
 */
function clientHandle(walk: (onAttempt: (client: PostgresClient) => void) => Promise<PostgresClient>): Client {
  let current: PostgresClient | undefined;
  const connect = (callback?: ConnectCallback): Promise<Client> | void => {
    const done = walk((attempt) => (current = attempt)).then(() => handle);
    if (!callback) return done;
    done.then(
      (client) => callback(null, client),
      (error: Error) => callback(error),
    );
  };
  // until the walk's first attempt, or when none could start (a certificate file missing), an
  // unconnected pg.Client answers, as pg-pool's own client does before connect()
  const handle = new Proxy(new Client(), {
    get(target, key) {
      if (key === 'connect') return connect;
      const subject = current ?? target;
      const value: unknown = Reflect.get(subject, key, subject);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(subject) : value;
    },
    set: (target, key, value) => Reflect.set(current ?? target, key, value),
    has: (target, key) => Reflect.has(current ?? target, key),
    // instanceof pg.Client, as the client itself is
    getPrototypeOf: (target) => Reflect.getPrototypeOf(current ?? target),
  });
  return handle;
}
