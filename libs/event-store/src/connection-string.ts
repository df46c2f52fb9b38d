import { userInfo } from 'node:os';

/**
 * A PostgreSQL connection URI as libpq reads it (PostgreSQL docs, "Connection Strings"):
 * `postgres://user:password@h1:5432,h2,[::1]:5433/db?target_session_attrs=read-write&sslmode=verify-full`.
 * node-postgres reads one host with `new URL()`, which refuses a host list; this reads the list,
 * the attributes a session must have, the per-host timeout and libpq's SSL settings. Pure: the
 * files it names are read when connecting (ssl-choices.ts), so a renewed certificate is used
 * by the next connection.
 */
export interface ConnectionSettings {
  /** tried in order (libpq's `host`/`port`, in the URI or as parameters) */
  hosts: HostAddress[];
  database: string;
  /** PGUSER, else the operating-system user, as libpq defaults it */
  user: string;
  /** undefined: node-postgres then asks PGPASSWORD or ~/.pgpass */
  password: string | undefined;
  targetSessionAttrs: TargetSessionAttrs;
  /** per host, as libpq's connect_timeout (seconds; 0 or absent = none, and at least 2 s) */
  connectTimeoutMs: number;
  ssl: SslSettings;
  /** the other libpq parameters node-postgres sends at start-up */
  applicationName?: string;
  options?: string;
}

export interface HostAddress {
  host: string;
  port: number;
}

export const TARGET_SESSION_ATTRS = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby'] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

export interface SslSettings {
  /** libpq's default is prefer: TLS when the server offers it, unverified */
  mode: SslMode;
  /** a CA file, or `system` for the system's trusted CAs; undefined = ~/.postgresql/root.crt when it exists */
  rootCert?: string;
  /** client certificate and key files; undefined = ~/.postgresql/postgresql.crt and .key when they exist */
  cert?: string;
  key?: string;
}

const DEFAULT_PORT = 5432;
/** beyond these, a URL is a mistake: they bound what a typo can make the API try */
export const MAX_HOSTS = 16;

const PASSED_THROUGH = new Set(['application_name', 'options']);
const READ = new Set([
  'host',
  'port',
  'dbname',
  'user',
  'password',
  'target_session_attrs',
  'connect_timeout',
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
]);

/** Errors name the parameter, never the URL: it may hold a password. */
export class ConnectionStringError extends Error {}

export function parseConnectionString(text: string, env: NodeJS.ProcessEnv = process.env): ConnectionSettings {
  const match = /^postgres(?:ql)?:\/\/([^/?#]*)(?:\/([^?#]*))?(?:\?([^#]*))?$/.exec(text);
  if (!match)
    throw new ConnectionStringError(
      'the database URL must look like postgres://[user[:password]@]host[:port][,host[:port]...][/database][?parameters]',
    );
  const [, authority, path = '', query = ''] = match;
  const at = authority.lastIndexOf('@');
  const userInfoPart = at >= 0 ? authority.slice(0, at) : '';
  const hostPart = at >= 0 ? authority.slice(at + 1) : authority;
  const colon = userInfoPart.indexOf(':');
  const params = new Map<string, string>();
  for (const pair of query.split('&').filter(Boolean)) {
    const equals = pair.indexOf('=');
    const key = decode(equals >= 0 ? pair.slice(0, equals) : pair, 'a parameter name');
    if (!READ.has(key) && !PASSED_THROUGH.has(key))
      throw new ConnectionStringError(`the database URL's parameter "${key}" is not supported`);
    params.set(key, decode(equals >= 0 ? pair.slice(equals + 1) : '', `parameter ${key}`));
  }

  const hosts = params.has('host') || params.has('port') ? hostsFromParams(params, hostPart) : hostsFromAuthority(hostPart);
  const user =
    params.get('user') ||
    decode(colon >= 0 ? userInfoPart.slice(0, colon) : userInfoPart, 'the user name') ||
    env.PGUSER ||
    userInfo().username;
  const passwordText = params.get('password') ?? (colon >= 0 ? decode(userInfoPart.slice(colon + 1), 'the password') : undefined);
  const database = params.get('dbname') || decode(path, 'the database name') || user;
  return {
    hosts,
    database,
    user,
    password: passwordText === '' ? undefined : passwordText,
    targetSessionAttrs: oneOf(params.get('target_session_attrs') ?? 'any', TARGET_SESSION_ATTRS, 'target_session_attrs'),
    connectTimeoutMs: connectTimeout(params.get('connect_timeout')),
    ssl: sslSettings(params),
    ...(params.has('application_name') ? { applicationName: params.get('application_name') } : {}),
    ...(params.has('options') ? { options: params.get('options') } : {}),
  };
}

/** The same URL with its database, user or password replaced: for migrations' `postgres` database and the test suites. */
export function formatConnectionString(settings: ConnectionSettings): string {
  const auth =
    encodeURIComponent(settings.user) + (settings.password !== undefined ? `:${encodeURIComponent(settings.password)}` : '') + '@';
  const hosts = settings.hosts.map(({ host, port }) => `${host.includes(':') ? `[${host}]` : encodeURIComponent(host)}:${port}`).join(',');
  const params = new URLSearchParams();
  if (settings.targetSessionAttrs !== 'any') params.set('target_session_attrs', settings.targetSessionAttrs);
  if (settings.connectTimeoutMs) params.set('connect_timeout', String(settings.connectTimeoutMs / 1000));
  if (settings.ssl.mode !== 'prefer') params.set('sslmode', settings.ssl.mode);
  if (settings.ssl.rootCert !== undefined) params.set('sslrootcert', settings.ssl.rootCert);
  if (settings.ssl.cert !== undefined) params.set('sslcert', settings.ssl.cert);
  if (settings.ssl.key !== undefined) params.set('sslkey', settings.ssl.key);
  if (settings.applicationName !== undefined) params.set('application_name', settings.applicationName);
  if (settings.options !== undefined) params.set('options', settings.options);
  const query = params.toString();
  return `postgres://${auth}${hosts}/${encodeURIComponent(settings.database)}${query ? `?${query}` : ''}`;
}

/** `url` naming another database of the same servers. */
export function withDatabase(url: string, database: string): string {
  return formatConnectionString({ ...parseConnectionString(url), database });
}

/** `user@h1:5432,h2:5432/db`: what a log line may say about a connection string (never the password). */
export function describeConnectionString(settings: ConnectionSettings): string {
  return `${settings.user}@${settings.hosts.map(describeHost).join(',')}/${settings.database}`;
}

export const describeHost = ({ host, port }: HostAddress): string => `${host.includes(':') ? `[${host}]` : host}:${port}`;

function hostsFromAuthority(hostPart: string): HostAddress[] {
  if (hostPart === '') return [{ host: 'localhost', port: DEFAULT_PORT }];
  const hosts = hostPart.split(',').map((entry) => {
    const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
    const [host, port] = bracketed ? [bracketed[1], bracketed[2]] : splitHostPort(entry);
    return { host: host === '' ? 'localhost' : decode(host, 'a host name'), port: portNumber(port) };
  });
  return limited(hosts);
}

function splitHostPort(entry: string): [string, string | undefined] {
  const colon = entry.lastIndexOf(':');
  return colon >= 0 ? [entry.slice(0, colon), entry.slice(colon + 1)] : [entry, undefined];
}

/** `?host=h1,h2&port=5432,5433`: libpq lets parameters name the hosts (one port for all, or one each). */
function hostsFromParams(params: Map<string, string>, hostPart: string): HostAddress[] {
  const fromAuthority = hostsFromAuthority(hostPart);
  const names = params.has('host') ? params.get('host')!.split(',') : fromAuthority.map((h) => h.host);
  const ports = params.get('port')?.split(',');
  if (ports && ports.length !== 1 && ports.length !== names.length)
    throw new ConnectionStringError(`the database URL names ${names.length} hosts and ${ports.length} ports`);
  return limited(
    names.map((host, index) => ({
      host: host || 'localhost',
      port: ports ? portNumber(ports[ports.length === 1 ? 0 : index]) : (fromAuthority[index]?.port ?? DEFAULT_PORT),
    })),
  );
}

function limited(hosts: HostAddress[]): HostAddress[] {
  if (hosts.length > MAX_HOSTS) throw new ConnectionStringError(`the database URL names ${hosts.length} hosts, more than ${MAX_HOSTS}`);
  return hosts;
}

function portNumber(text: string | undefined): number {
  if (text === undefined || text === '') return DEFAULT_PORT;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535)
    throw new ConnectionStringError(`the database URL's port "${text}" is not a port number`);
  return port;
}

function connectTimeout(text: string | undefined): number {
  if (text === undefined || text === '') return 0;
  if (!/^\d+$/.test(text)) throw new ConnectionStringError(`connect_timeout "${text}" must be a whole number of seconds`);
  const seconds = Number(text);
  // libpq: "It is not recommended to use a timeout of less than 2 seconds"; it rounds 1 up to 2
  return seconds === 0 ? 0 : Math.max(seconds, 2) * 1000;
}

function sslSettings(params: Map<string, string>): SslSettings {
  const rootCert = params.get('sslrootcert');
  // libpq 16: sslrootcert=system without an sslmode means verify-full (a public CA proves nothing less)
  const fallback = rootCert === 'system' ? 'verify-full' : 'prefer';
  const mode = oneOf(params.get('sslmode') || fallback, SSL_MODES, 'sslmode');
  if (rootCert === 'system' && mode !== 'verify-full')
    throw new ConnectionStringError(
      `sslrootcert=system needs sslmode=verify-full, not ${mode}: any host can hold a certificate from a public CA`,
    );
  return {
    mode,
    ...(rootCert !== undefined ? { rootCert } : {}),
    ...(params.has('sslcert') ? { cert: params.get('sslcert') } : {}),
    ...(params.has('sslkey') ? { key: params.get('sslkey') } : {}),
  };
}

function oneOf<T extends string>(value: string, allowed: readonly T[], name: string): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new ConnectionStringError(`${name} "${value}" must be one of ${allowed.join(', ')}`);
  return value as T;
}

function decode(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new ConnectionStringError(`the database URL's ${what} is not valid percent-encoding`);
  }
}
