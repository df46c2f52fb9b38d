import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { OutgoingHttpHeaders } from 'node:http';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { proxyFromEnvironment } from './proxy-from-environment';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** Everything needed to reach one Kubernetes API server. */
export interface KubeConnection {
  /** base URL of the API server, possibly with a path prefix (e.g. behind a proxy) */
  server: string;
  /** PEM bundle to verify the server with; the system roots when absent */
  ca?: Buffer;
  insecureSkipTlsVerify: boolean;
  /** client certificate and key (PEM) for mutual TLS */
  cert?: Buffer;
  key?: Buffer;
  /** the bearer token for the next request; token files are re-read each time and plugin credentials renewed as they expire */
  token?: () => Promise<string>;
  /** the HTTP(S) or SOCKS proxy to reach the server through; may carry credentials, so never log it whole */
  proxyUrl?: URL;
  /** where the settings came from, for logs (a proxy without its credentials) */
  source: string;
}

export class KubeConfigError extends Error {
  override name = 'KubeConfigError';
}

export interface LoadKubeConnectionOptions {
  env?: NodeJS.ProcessEnv;
  /** the in-cluster service-account directory (tests point it at a temporary one) */
  serviceAccountDir?: string;
}

/**
 * `KUBECONFIG` when set, else the in-cluster service account, as client-go's default loading rules do;
 * without a kubeconfig `proxy-url`, the proxy the environment names for the server (HTTPS_PROXY, NO_PROXY...).
 */
export function loadKubeConnection(options: LoadKubeConnectionOptions = {}): KubeConnection {
  const env = options.env ?? process.env;
  let connection: KubeConnection;
  if (env.KUBECONFIG) connection = kubeconfigConnection(env.KUBECONFIG);
  else if (env.KUBERNETES_SERVICE_HOST) connection = inClusterConnection(env, options.serviceAccountDir);
  else throw new KubeConfigError('no Kubernetes connection: set KUBECONFIG, or run in a pod (KUBERNETES_SERVICE_HOST is unset)');
  if (connection.proxyUrl) return connection;
  const proxy = proxyFromEnvironment(connection.server, env);
  return proxy ? withProxy(connection, parseProxyUrl(proxy.url, proxy.variable)) : connection;
}

const PROXY_SCHEMES = ['http:', 'https:', 'socks5:', 'socks5h:'];

/** A proxy URL client-go would accept (and socks5h); the messages never repeat it, as it may hold a password. */
function parseProxyUrl(text: string, where: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new KubeConfigError(`${where}: the proxy URL is not a valid URL`);
  }
  if (!PROXY_SCHEMES.includes(url.protocol))
    throw new KubeConfigError(`${where}: unsupported proxy scheme "${url.protocol.slice(0, -1)}", must be http, https, socks5 or socks5h`);
  if (!url.hostname) throw new KubeConfigError(`${where}: the proxy URL has no host`);
  return url;
}

function withProxy(connection: KubeConnection, proxyUrl: URL): KubeConnection {
  // scheme, host and port only: userinfo stays out of logs
  return { ...connection, proxyUrl, source: `${connection.source}, via proxy ${proxyUrl.protocol}//${proxyUrl.host}` };
}

/** The pod's service account: API server from the service env vars, token and CA from the mounted secret. */
export function inClusterConnection(env: NodeJS.ProcessEnv, dir = SERVICE_ACCOUNT_DIR): KubeConnection {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw new KubeConfigError('in-cluster config needs KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT');
  const tokenFile = join(dir, 'token');
  if (!existsSync(tokenFile)) throw new KubeConfigError(`in-cluster config: no service-account token at ${tokenFile}`);
  const caFile = join(dir, 'ca.crt');
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    ca: existsSync(caFile) ? readFileSync(caFile) : undefined,
    insecureSkipTlsVerify: false,
    token: fileToken(tokenFile),
    source: `in-cluster service account (${dir})`,
  };
}

type Fields = Record<string, unknown>;

/**
 * One or more kubeconfig files (`KUBECONFIG` is a path list): the first file to name a cluster, user,
 * context or current-context wins, as in kubectl. Relative file paths resolve against their own file.
 */
export function kubeconfigConnection(pathList: string): KubeConnection {
  const files = pathList.split(delimiter).filter(Boolean);
  const clusters = new Map<string, { file: string; fields: Fields }>();
  const users = new Map<string, { file: string; fields: Fields }>();
  const contexts = new Map<string, Fields>();
  let currentContext: string | undefined;
  for (const file of files) {
    const doc = readKubeconfig(file);
    currentContext ??= typeof doc['current-context'] === 'string' && doc['current-context'] ? doc['current-context'] : undefined;
    for (const entry of namedEntries(doc.clusters, 'cluster', file)) if (!clusters.has(entry.name)) clusters.set(entry.name, entry);
    for (const entry of namedEntries(doc.users, 'user', file)) if (!users.has(entry.name)) users.set(entry.name, entry);
    for (const entry of namedEntries(doc.contexts, 'context', file)) if (!contexts.has(entry.name)) contexts.set(entry.name, entry.fields);
  }
  if (!currentContext) throw new KubeConfigError(`kubeconfig ${pathList}: no current-context`);
  const context = contexts.get(currentContext);
  if (!context) throw new KubeConfigError(`kubeconfig ${pathList}: context "${currentContext}" not found`);
  const cluster = clusters.get(String(context.cluster));
  if (!cluster)
    throw new KubeConfigError(`kubeconfig ${pathList}: cluster "${String(context.cluster)}" of context "${currentContext}" not found`);
  const server = cluster.fields.server;
  if (typeof server !== 'string' || !server)
    throw new KubeConfigError(`kubeconfig ${pathList}: cluster "${String(context.cluster)}" has no server`);
  if (!URL.canParse(server))
    throw new KubeConfigError(`kubeconfig ${pathList}: the server of cluster "${String(context.cluster)}" is not a URL`);
  const userName = typeof context.user === 'string' ? context.user : undefined;
  const user = userName === undefined ? undefined : users.get(userName);
  if (userName !== undefined && !user) {
    throw new KubeConfigError(`kubeconfig ${pathList}: user "${userName}" of context "${currentContext}" not found`);
  }
  const connection: KubeConnection = {
    server,
    ca: dataOrFile(cluster.fields, 'certificate-authority', cluster.file),
    insecureSkipTlsVerify: cluster.fields['insecure-skip-tls-verify'] === true,
    ...(user ? userCredentials(user.fields, user.file, userName!) : {}),
    source: `kubeconfig ${pathList}, context ${currentContext}`,
  };
  const proxyUrl = cluster.fields['proxy-url'];
  if (typeof proxyUrl !== 'string' || !proxyUrl) return connection;
  return withProxy(connection, parseProxyUrl(proxyUrl, `kubeconfig ${cluster.file}: proxy-url of cluster "${String(context.cluster)}"`));
}

function userCredentials(user: Fields, file: string, name: string): Pick<KubeConnection, 'cert' | 'key' | 'token'> {
  const cert = dataOrFile(user, 'client-certificate', file);
  const key = dataOrFile(user, 'client-key', file);
  if (Boolean(cert) !== Boolean(key))
    throw new KubeConfigError(`kubeconfig user "${name}": a client certificate needs a client key and vice versa`);
  let token: KubeConnection['token'];
  if (typeof user.token === 'string' && user.token) {
    const value = user.token;
    token = () => Promise.resolve(value);
  } else if (typeof user['token-file'] === 'string' && user['token-file']) {
    token = fileToken(resolve(dirname(file), user['token-file']));
  } else if (!cert && (user.exec || user['auth-provider'])) {
    token = pluginToken(name, user, file);
  }
  return { cert, key, token };
}

/**
 * exec plugins (EKS, GKE, AKS, kubelogin) and auth providers, through the official client's
 * authenticators: they run the plugin, keep its credential until it expires, then ask again.
 */
function pluginToken(name: string, user: Fields, file: string): () => Promise<string> {
  const exec = user.exec as { command?: unknown } | undefined;
  // as kubectl does: a command with a path separator is relative to its kubeconfig file
  const command =
    exec && typeof exec.command === 'string' && exec.command.includes('/') ? resolve(dirname(file), exec.command) : exec?.command;
  // loaded on first use: the client library costs most of a second to load, and only plugin users need it
  let credentials: KubeConfig | undefined;
  return async () => {
    if (!credentials) {
      credentials = new (await import('@kubernetes/client-node')).KubeConfig();
      credentials.loadFromClusterAndUser(
        // the client builds options for a cluster; only the user's credential is taken from them
        { name: 'credentials', server: 'https://credentials.invalid', skipTLSVerify: false },
        { name, exec: exec && { ...exec, command }, authProvider: user['auth-provider'] },
      );
    }
    const headers: OutgoingHttpHeaders = {};
    try {
      await credentials.applyToHTTPSOptions({ headers });
    } catch (error) {
      throw new KubeConfigError(`kubeconfig user "${name}": the credential plugin failed: ${(error as Error).message}`);
    }
    const authorization = headers.Authorization;
    if (typeof authorization !== 'string' || !authorization.startsWith('Bearer ')) {
      throw new KubeConfigError(`kubeconfig user "${name}": the credential plugin gave no token`);
    }
    return authorization.slice('Bearer '.length);
  };
}

function readKubeconfig(file: string): Fields {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new KubeConfigError(`cannot read kubeconfig ${file}: ${(error as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    throw new KubeConfigError(`kubeconfig ${file} is not valid YAML: ${(error as Error).message}`);
  }
  return doc && typeof doc === 'object' ? (doc as Fields) : {};
}

/** `clusters: [{name, cluster: {...}}]` and the like, skipping malformed entries. */
function namedEntries(list: unknown, field: string, file: string): Array<{ name: string; file: string; fields: Fields }> {
  if (!Array.isArray(list)) return [];
  return list
    .filter((entry: unknown): entry is Fields & { name: string } => typeof (entry as Fields | null)?.name === 'string')
    .map((entry) => ({ name: entry.name, file, fields: (entry[field] ?? {}) as Fields }));
}

/** `<field>-data` (base64) wins over `<field>` (a path, relative to the kubeconfig file). */
function dataOrFile(fields: Fields, field: string, file: string): Buffer | undefined {
  const data = fields[`${field}-data`];
  if (typeof data === 'string' && data) return Buffer.from(data, 'base64');
  const path = fields[field];
  if (typeof path !== 'string' || !path) return undefined;
  const absolute = isAbsolute(path) ? path : resolve(dirname(file), path);
  try {
    return readFileSync(absolute);
  } catch (error) {
    throw new KubeConfigError(`kubeconfig ${file}: cannot read ${field} ${absolute}: ${(error as Error).message}`);
  }
}

function fileToken(path: string): () => Promise<string> {
  return async () => (await readFile(path, 'utf8')).trim();
}
